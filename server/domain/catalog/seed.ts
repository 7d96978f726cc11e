/**
 * The demo catalog for trying the Hub out: six categories and the 32 templates of ./demo-catalog (real images,
 * ports, volumes and variables). Idempotent: existing category and template slugs are left alone.
 */
import { sql } from 'drizzle-orm';
import { categories, templates } from '../../db/schema';
import { DEMO_TEMPLATES, documentationOf, type DemoTemplate } from './demo-catalog';
import { catalogWrite } from './writes';

const CATEGORIES = [
  {
    slug: 'ai-ml',
    name: 'AI & Machine Learning',
    icon: 'brain',
    description: 'Model serving, notebooks and training jobs',
    sortOrder: 10,
  },
  {
    slug: 'databases',
    name: 'Databases',
    icon: 'database',
    description: 'Relational, document and key-value stores',
    sortOrder: 20,
  },
  {
    slug: 'monitoring',
    name: 'Monitoring',
    icon: 'activity',
    description: 'Metrics, logs and dashboards',
    sortOrder: 30,
  },
  {
    slug: 'web',
    name: 'Web & Proxies',
    icon: 'globe',
    description: 'Web servers, reverse proxies and CMSs',
    sortOrder: 40,
  },
  {
    slug: 'dev-tools',
    name: 'Developer Tools',
    icon: 'code',
    description: 'Source control, CI and registries',
    sortOrder: 50,
  },
  {
    slug: 'enterprise-ai',
    name: 'Enterprise AI',
    icon: 'lock',
    description: 'Licensed models for organizations with access',
    sortOrder: 60,
    isPrivate: true,
  },
];

const REGISTRY_DOCKER_HUB = 'https://registry-1.docker.io';

function templateValues(t: DemoTemplate, categoryId: string) {
  const gpu = t.gpu ?? 0;
  const host = t.image.includes('/') ? t.image.split('/')[0]! : '';
  const privateCategory = t.category === 'enterprise-ai';
  return {
    slug: t.slug,
    name: t.name,
    description: t.description,
    version: t.version,
    kind: 'deployment',
    categoryId,
    imageName: t.image,
    imageTag: t.tag,
    cpuRequest: t.cpu,
    memoryRequest: t.memory,
    gpuCount: gpu,
    vramRequest: gpu ? (t.vram ?? '0Gi') : '0Gi',
    concurrentJobs: gpu ? 1 : 4,
    env: t.env,
    envSchema: t.envSchema,
    ports: t.ports,
    volumeMounts: t.volumes,
    nodeSelector: (gpu ? { 'nvidia.com/gpu.present': 'true' } : {}) as Record<string, string>,
    requiredNetworkTypes: privateCategory ? ['mesh'] : ['public'],
    tags: t.tags,
    isPublic: true,
    isFeatured: t.featured ?? false,
    minTier: privateCategory ? ('enterprise' as const) : ('free' as const),
    documentation: documentationOf(t),
    registryUrl: host.includes('.') ? `https://${host}` : REGISTRY_DOCKER_HUB,
    command: t.command ?? [],
    secretRefs: [],
    tolerations: gpu ? [{ key: 'nvidia.com/gpu', operator: 'Exists' as const, effect: 'NoSchedule' as const }] : [],
    iconUrl: '',
  };
}

/** The values the seed writes for every demo template (tests compare them with their references). */
export function demoTemplateRows(idOfCategory: (slug: string) => string) {
  return DEMO_TEMPLATES.map((t) => templateValues(t, idOfCategory(t.category)));
}

export async function seedCatalog() {
  return catalogWrite(async ({ tx, at }) => {
    await tx
      .insert(categories)
      .values(CATEGORIES.map((c) => ({ ...c, isPrivate: c.isPrivate ?? false, updatedAt: at })))
      .onConflictDoNothing({ target: categories.slug });
    const rows = await tx.select({ id: categories.id, slug: categories.slug }).from(categories);
    const idOf = new Map(rows.map((r) => [r.slug, r.id]));
    const inserted = await tx
      .insert(templates)
      .values(demoTemplateRows((slug) => idOf.get(slug)!).map((t) => ({ ...t, updatedAt: at, createdAt: at })))
      .onConflictDoNothing({ target: templates.slug })
      .returning({ id: templates.id });
    const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(templates);
    return { categories: CATEGORIES.length, templatesInserted: inserted.length, templatesTotal: count?.n ?? 0 };
  });
}
