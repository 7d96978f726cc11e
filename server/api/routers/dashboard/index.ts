import { createTRPCRouter } from '../../trpc';
import { adminOrganizationProcedure } from './adminOrganization';
import { adminTemplateProcedure } from './adminTemplate';
import { issueApiTokenProcedure } from './issueApiToken';

/** Operations only the dashboard needs (tRPC only, no REST mapping). */
export const dashboardRouter = createTRPCRouter({
  issueApiToken: issueApiTokenProcedure,
  adminTemplate: adminTemplateProcedure,
  adminOrganization: adminOrganizationProcedure,
});
