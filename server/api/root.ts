/** The single definition of every Hub operation: REST (/api/v1), the dashboard (/api/trpc) and the CLI call it. */
import { accountRouter } from './routers/account';
import { adminRouter } from './routers/admin';
import { catalogRouter } from './routers/catalog';
import { dashboardRouter } from './routers/dashboard';
import { supportRouter } from './routers/support';
import { tokensRouter } from './routers/tokens';
import { createCallerFactory, createTRPCRouter } from './trpc';

export const appRouter = createTRPCRouter({
  catalog: catalogRouter,
  account: accountRouter,
  admin: adminRouter,
  tokens: tokensRouter,
  support: supportRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
