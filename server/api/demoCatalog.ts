/**
 * The demo catalog's data file (domain/catalog/demo-catalog.json), validated by the admin API's own schemas for
 * creating a category and a template (every field given; a template names its category by slug and gets its
 * documentation from the seed), then written by the domain's seed. A file that fails them is refused at the seed,
 * naming the entry and the field.
 */
import { z } from 'zod';
import data from '../domain/catalog/demo-catalog.json';
import type { DemoCatalog, DemoTemplateValues } from '../domain/catalog/demo-catalog';
import { seedCatalog } from '../domain/catalog/seed';
import { templateValuesFrom } from './schemas/admin';
import { catalogSlug, CreateCategoryInput, CreateTemplateInput, PortInput } from './schemas/templateInput';

const DemoReference = z.strictObject({
  source: z.string().min(1),
  checked: z.enum(['searched', 'recalled', 'fictional']),
  ports: z.array(PortInput),
  volumes: z.array(z.string().startsWith('/')),
  variables: z.record(z.string(), z.string()),
  note: z.string().optional(),
});

const DemoCatalogFile = z
  .strictObject({
    categories: z.array(CreateCategoryInput.required()),
    templates: z.array(
      z.strictObject({
        category: catalogSlug(),
        template: CreateTemplateInput.omit({
          category_id: true,
          org_id: true,
          documentation: true,
          registry_credentials: true,
        }).required(),
        about: z.string().min(1),
        first_steps: z.array(z.string().min(1)).min(1),
        reference: DemoReference,
      }),
    ),
  })
  .superRefine((file, ctx) => {
    const slugs = new Set(file.categories.map((c) => c.slug));
    file.templates.forEach((t, i) => {
      if (!slugs.has(t.category))
        ctx.addIssue({ code: 'custom', path: ['templates', i, 'category'], message: `no category "${t.category}"` });
    });
  });

/** The demo catalog of `file` (the data file's shape), or an error naming every entry and field it refuses. */
export function parseDemoCatalog(file: unknown): DemoCatalog {
  const parsed = DemoCatalogFile.safeParse(file);
  if (!parsed.success)
    throw new Error(`The demo catalog (demo-catalog.json) is invalid:\n${z.prettifyError(parsed.error)}`);
  return {
    categories: parsed.data.categories.map((c) => ({
      name: c.name,
      slug: c.slug,
      description: c.description,
      icon: c.icon,
      sortOrder: c.sort_order,
      isPrivate: c.is_private,
    })),
    templates: parsed.data.templates.map((t) => ({
      category: t.category,
      // Every field is given (the schema above requires them), so the partial values are the whole template.
      values: templateValuesFrom(t.template) as DemoTemplateValues,
      about: t.about,
      firstSteps: t.first_steps,
      reference: t.reference,
    })),
  };
}

let catalog: DemoCatalog | undefined;

/** The demo catalog of the data file, validated once per process. */
export function demoCatalog(): DemoCatalog {
  return (catalog ??= parseDemoCatalog(data));
}

/** Writes the demo catalog (idempotent: existing category and template slugs are left alone). */
export function seedDemoCatalog() {
  return seedCatalog(demoCatalog());
}
