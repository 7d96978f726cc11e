import { createTRPCRouter } from '../../trpc';
import { getTemplateProcedure } from './getTemplate';
import { listCategoriesProcedure } from './listCategories';
import { listTemplatesProcedure } from './listTemplates';
import { templateUpdatesProcedure } from './templateUpdates';

// Declaration order matters for REST routing: /catalog/templates/updates must come before /{slug}.
export const catalogRouter = createTRPCRouter({
  listTemplates: listTemplatesProcedure,
  templateUpdates: templateUpdatesProcedure,
  getTemplate: getTemplateProcedure,
  listCategories: listCategoriesProcedure,
});
