/** A realistic demo catalog for trying the Hub out. Idempotent: existing slugs are left alone. */
import { sql } from 'drizzle-orm';
import { categories, templates } from '../../db/schema';
import { catalogWrite } from './writes';

const CATEGORIES = [
  { slug: 'ai-ml', name: 'AI & Machine Learning', icon: 'brain', description: 'Model serving, notebooks and training jobs', sortOrder: 10 },
  { slug: 'databases', name: 'Databases', icon: 'database', description: 'Relational, document and key-value stores', sortOrder: 20 },
  { slug: 'monitoring', name: 'Monitoring', icon: 'activity', description: 'Metrics, logs and dashboards', sortOrder: 30 },
  { slug: 'web', name: 'Web & Proxies', icon: 'globe', description: 'Web servers, reverse proxies and CMSs', sortOrder: 40 },
  { slug: 'dev-tools', name: 'Developer Tools', icon: 'code', description: 'Source control, CI and registries', sortOrder: 50 },
  { slug: 'enterprise-ai', name: 'Enterprise AI', icon: 'lock', description: 'Licensed models for organizations with access', sortOrder: 60, isPrivate: true },
];

type Seed = [slug: string, name: string, image: string, tag: string, category: string, tags: string[], gpu?: number];

const TEMPLATES: Seed[] = [
  ['ollama', 'Ollama', 'ollama/ollama', '0.5.7', 'ai-ml', ['llm', 'inference', 'gpu'], 1],
  ['vllm', 'vLLM', 'vllm/vllm-openai', 'v0.7.2', 'ai-ml', ['llm', 'inference', 'openai', 'gpu'], 1],
  ['jupyterlab', 'JupyterLab', 'quay.io/jupyter/scipy-notebook', '2025-01-13', 'ai-ml', ['notebook', 'python']],
  ['stable-diffusion-webui', 'Stable Diffusion WebUI', 'ghcr.io/neggles/sd-webui-docker', 'latest', 'ai-ml', ['image', 'gpu'], 1],
  ['open-webui', 'Open WebUI', 'ghcr.io/open-webui/open-webui', 'v0.5.7', 'ai-ml', ['llm', 'chat', 'ui']],
  ['mlflow', 'MLflow', 'ghcr.io/mlflow/mlflow', 'v2.20.1', 'ai-ml', ['tracking', 'python']],
  ['text-embeddings-inference', 'Text Embeddings Inference', 'ghcr.io/huggingface/text-embeddings-inference', '1.6', 'ai-ml', ['embeddings', 'inference']],
  ['postgresql', 'PostgreSQL', 'postgres', '17.2', 'databases', ['sql', 'relational']],
  ['mariadb', 'MariaDB', 'mariadb', '11.4', 'databases', ['sql', 'relational']],
  ['redis', 'Redis', 'redis', '7.4', 'databases', ['cache', 'key-value']],
  ['mongodb', 'MongoDB', 'mongo', '8.0', 'databases', ['document', 'nosql']],
  ['qdrant', 'Qdrant', 'qdrant/qdrant', 'v1.13.2', 'databases', ['vector', 'search', 'embeddings']],
  ['clickhouse', 'ClickHouse', 'clickhouse/clickhouse-server', '25.1', 'databases', ['analytics', 'sql']],
  ['minio', 'MinIO', 'minio/minio', 'RELEASE.2025-01-20T14-49-07Z', 'databases', ['s3', 'object-storage']],
  ['prometheus', 'Prometheus', 'prom/prometheus', 'v3.1.0', 'monitoring', ['metrics', 'alerting']],
  ['grafana', 'Grafana', 'grafana/grafana', '11.4.0', 'monitoring', ['dashboards', 'metrics']],
  ['loki', 'Loki', 'grafana/loki', '3.3.2', 'monitoring', ['logs']],
  ['uptime-kuma', 'Uptime Kuma', 'louislam/uptime-kuma', '1.23.16', 'monitoring', ['uptime', 'alerting']],
  ['node-exporter', 'Node Exporter', 'prom/node-exporter', 'v1.8.2', 'monitoring', ['metrics', 'host']],
  ['nginx', 'NGINX', 'nginx', '1.27', 'web', ['http', 'proxy']],
  ['caddy', 'Caddy', 'caddy', '2.9', 'web', ['http', 'proxy', 'tls']],
  ['traefik', 'Traefik', 'traefik', 'v3.3', 'web', ['proxy', 'ingress']],
  ['wordpress', 'WordPress', 'wordpress', '6.7', 'web', ['cms', 'php']],
  ['ghost', 'Ghost', 'ghost', '5.107', 'web', ['cms', 'blog']],
  ['gitea', 'Gitea', 'gitea/gitea', '1.23', 'dev-tools', ['git', 'scm']],
  ['woodpecker', 'Woodpecker CI', 'woodpeckerci/woodpecker-server', 'v3.0.1', 'dev-tools', ['ci']],
  ['registry', 'Docker Registry', 'registry', '2.8', 'dev-tools', ['oci', 'registry']],
  ['code-server', 'code-server', 'codercom/code-server', '4.96.4', 'dev-tools', ['ide', 'editor']],
  ['sonarqube', 'SonarQube', 'sonarqube', '10.8-community', 'dev-tools', ['quality', 'static-analysis']],
  ['llama-enterprise', 'Llama Enterprise Gateway', 'registry.example.com/enterprise/llama-gateway', '2.1.0', 'enterprise-ai', ['llm', 'gateway', 'gpu'], 2],
  ['private-rag', 'Private RAG Stack', 'registry.example.com/enterprise/rag-stack', '1.4.2', 'enterprise-ai', ['rag', 'llm', 'embeddings'], 1],
  ['speech-to-text', 'Speech to Text', 'registry.example.com/enterprise/whisper-server', '3.0.0', 'enterprise-ai', ['audio', 'transcription', 'gpu'], 1],
];

const FEATURED = new Set(['ollama', 'open-webui', 'postgresql', 'grafana', 'gitea']);

function templateValues(seed: Seed, categoryId: string) {
  const [slug, name, image, tag, category, tags, gpu = 0] = seed;
  const port = 8000 + (slug.length * 97) % 1000;
  return {
    slug,
    name,
    description: `${name} packaged for Core: sensible defaults, persistent storage and health checks.`,
    version: tag.replace(/^v/, ''),
    kind: 'deployment',
    categoryId,
    imageName: image,
    imageTag: tag,
    cpuRequest: gpu ? '4' : '500m',
    memoryRequest: gpu ? '16Gi' : '512Mi',
    gpuCount: gpu,
    vramRequest: gpu ? `${gpu * 24}Gi` : '0Gi',
    concurrentJobs: gpu ? 1 : 4,
    env: [{ name: 'TZ', value: 'UTC' }],
    envSchema: [
      { name: 'ADMIN_PASSWORD', required: true, default_value: '', description: `Initial administrator password for ${name}` },
      { name: 'LOG_LEVEL', required: false, default_value: 'info', description: 'One of debug, info, warn, error' },
    ],
    ports: [{ containerPort: port, protocol: 'TCP' }],
    volumeMounts: [{ name: 'data', mountPath: `/var/lib/${slug}` }],
    nodeSelector: (gpu ? { 'nvidia.com/gpu.present': 'true' } : {}) as Record<string, string>,
    requiredNetworkTypes: category === 'enterprise-ai' ? ['mesh'] : ['public'],
    tags,
    isPublic: true,
    isFeatured: FEATURED.has(slug),
    minTier: category === 'enterprise-ai' ? ('enterprise' as const) : ('free' as const),
    documentation: `# ${name}\n\n${name} (\`${image}:${tag}\`) ready to deploy.\n\n## Configuration\n\n- \`ADMIN_PASSWORD\`: required on first start.\n- Data lives in \`/var/lib/${slug}\`.\n`,
    registryUrl: image.includes('/') && image.split('/')[0]!.includes('.') ? `https://${image.split('/')[0]}` : 'https://registry-1.docker.io',
    command: [],
    secretRefs: [],
    tolerations: gpu ? [{ key: 'nvidia.com/gpu', operator: 'Exists' as const, effect: 'NoSchedule' as const }] : [],
    iconUrl: '',
  };
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
      .values(TEMPLATES.map((t) => ({ ...templateValues(t, idOf.get(t[4])!), updatedAt: at, createdAt: at })))
      .onConflictDoNothing({ target: templates.slug })
      .returning({ id: templates.id });
    const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(templates);
    return { categories: CATEGORIES.length, templatesInserted: inserted.length, templatesTotal: count?.n ?? 0 };
  });
}
