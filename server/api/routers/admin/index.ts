import { createTRPCRouter } from '../../trpc';
import { auditLogProcedure } from './auditLog';
import { createCategoryProcedure } from './createCategory';
import { createGrantProcedure } from './createGrant';
import { createTemplateProcedure } from './createTemplate';
import { deleteCategoryProcedure } from './deleteCategory';
import { deleteGrantProcedure } from './deleteGrant';
import { deleteTemplateProcedure } from './deleteTemplate';
import { deleteUserProcedure } from './deleteUser';
import { fleetProcedure } from './fleet';
import { listApiKeysProcedure } from './listApiKeys';
import { listCategoriesProcedure } from './listCategories';
import { listGrantsProcedure } from './listGrants';
import { listOrganizationsProcedure } from './listOrganizations';
import { listTemplatesProcedure } from './listTemplates';
import { listUsersProcedure } from './listUsers';
import { revokeApiKeyProcedure } from './revokeApiKey';
import { statsProcedure } from './stats';
import { updateCategoryProcedure } from './updateCategory';
import { updateOrganizationProcedure } from './updateOrganization';
import { updateTemplateProcedure } from './updateTemplate';
import { updateUserProcedure } from './updateUser';

/**
 * /api/v1/admin/*: platform role admin or superadmin (others 403, no credential 401).
 * All paths are static; should a parameterised one be added, declare it after the static ones.
 */
export const adminRouter = createTRPCRouter({
  listTemplates: listTemplatesProcedure,
  createTemplate: createTemplateProcedure,
  updateTemplate: updateTemplateProcedure,
  deleteTemplate: deleteTemplateProcedure,
  listCategories: listCategoriesProcedure,
  createCategory: createCategoryProcedure,
  updateCategory: updateCategoryProcedure,
  deleteCategory: deleteCategoryProcedure,
  listGrants: listGrantsProcedure,
  createGrant: createGrantProcedure,
  deleteGrant: deleteGrantProcedure,
  listUsers: listUsersProcedure,
  updateUser: updateUserProcedure,
  deleteUser: deleteUserProcedure,
  listOrganizations: listOrganizationsProcedure,
  updateOrganization: updateOrganizationProcedure,
  listApiKeys: listApiKeysProcedure,
  revokeApiKey: revokeApiKeyProcedure,
  stats: statsProcedure,
  fleet: fleetProcedure,
  auditLog: auditLogProcedure,
});
