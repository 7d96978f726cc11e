/** The single definition of every Hub operation: REST (/api/v1), the dashboard (/api/trpc) and the CLI call it. */
import { catalogRouter } from './routers/catalog';
import { createCallerFactory, createTRPCRouter } from './trpc';

export const appRouter = createTRPCRouter({
  catalog: catalogRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
