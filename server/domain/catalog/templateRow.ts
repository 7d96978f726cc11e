/** The columns a catalog read returns for a template: every public column and its category's name, slug and icon. */
import { getTableColumns } from 'drizzle-orm';
import { categories, templates } from '../../db/schema';

const { registryCredentialsEnc: _secret, ...publicColumns } = getTableColumns(templates);

export const templateSelection = {
  ...publicColumns,
  categoryName: categories.name,
  categorySlug: categories.slug,
  categoryIcon: categories.icon,
};

export type TemplateRow = Omit<typeof templates.$inferSelect, 'registryCredentialsEnc'> & {
  categoryName: string;
  categorySlug: string;
  categoryIcon: string;
};
