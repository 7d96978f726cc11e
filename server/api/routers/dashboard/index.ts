import { createTRPCRouter } from '../../trpc';
import { issueApiTokenProcedure } from './issueApiToken';

/** Operations only the dashboard needs (tRPC only, no REST mapping). */
export const dashboardRouter = createTRPCRouter({
  issueApiToken: issueApiTokenProcedure,
});
