/**
 * Bench data: a realistic catalog bulk-inserted with SQL (generate_series), organizations with access
 * grants, and real credentials made by the Hub's own code (instance keys through createInstanceKey, a
 * platform admin's JWT through signUserToken, a personal access token through mintPat), so that the
 * server under test verifies exactly what it would verify in production.
 *
 * Templates are numbered 1..N and the data for number i does not depend on N, so growing the catalog
 * from 1,000 to 10,000 to 100,000 inserts only the new numbers. Every template's name starts with a
 * "brand" word unique to it (an 8-letter word made of four syllables, a bijection of i): searching for a
 * brand matches one template at any catalog size, which is how the search-latency probe compares sizes.
 */
import type { Sql } from 'postgres';

export interface CategorySeed {
  slug: string;
  name: string;
  icon: string;
  description: string;
  isPrivate: boolean;
}

export const CATEGORIES: CategorySeed[] = [
  {
    slug: 'ai-ml',
    name: 'AI & Machine Learning',
    icon: 'brain',
    description: 'Model serving, notebooks, vector stores',
    isPrivate: false,
  },
  {
    slug: 'databases',
    name: 'Databases',
    icon: 'database',
    description: 'Relational, document, cache and time-series stores',
    isPrivate: false,
  },
  {
    slug: 'web',
    name: 'Web & CMS',
    icon: 'globe',
    description: 'Web servers, content management, wikis',
    isPrivate: false,
  },
  {
    slug: 'monitoring',
    name: 'Monitoring & Observability',
    icon: 'activity',
    description: 'Metrics, logs, traces and alerts',
    isPrivate: false,
  },
  {
    slug: 'devops',
    name: 'DevOps & CI',
    icon: 'git-branch',
    description: 'Source control, CI runners, registries',
    isPrivate: false,
  },
  {
    slug: 'storage',
    name: 'Storage & Backup',
    icon: 'hard-drive',
    description: 'Object storage, file sync, backups',
    isPrivate: false,
  },
  { slug: 'networking', name: 'Networking', icon: 'network', description: 'VPN, DNS, proxies', isPrivate: false },
  {
    slug: 'security',
    name: 'Security & Identity',
    icon: 'shield',
    description: 'Identity providers, secrets, scanners',
    isPrivate: false,
  },
  {
    slug: 'analytics',
    name: 'Analytics & BI',
    icon: 'bar-chart',
    description: 'Dashboards, pipelines, query engines',
    isPrivate: false,
  },
  {
    slug: 'media',
    name: 'Media & Streaming',
    icon: 'film',
    description: 'Media servers, transcoding, photos',
    isPrivate: false,
  },
  {
    slug: 'enterprise-ai',
    name: 'Enterprise AI',
    icon: 'sparkles',
    description: 'Licensed models and pipelines for granted organizations',
    isPrivate: true,
  },
  {
    slug: 'partner-tools',
    name: 'Partner Tools',
    icon: 'handshake',
    description: 'Connectors for partner organizations',
    isPrivate: true,
  },
];

/** [name, slug, category, tags, gpu, container port] */
const PRODUCTS: [string, string, string, string, number, number][] = [
  ['LLM Server', 'llm-server', 'ai-ml', 'llm,inference,gpu', 1, 11434],
  ['Inference Gateway', 'inference-gateway', 'ai-ml', 'inference,api,gpu', 1, 8080],
  ['Vector Store', 'vector-store', 'ai-ml', 'vector,search,database', 0, 6333],
  ['Notebook Server', 'notebook-server', 'ai-ml', 'jupyter,python', 0, 8888],
  ['Speech-to-Text Service', 'speech-to-text', 'ai-ml', 'audio,inference,gpu', 1, 9000],
  ['Image Generator', 'image-generator', 'ai-ml', 'diffusion,gpu', 1, 7860],
  ['Embedding Service', 'embedding-service', 'ai-ml', 'llm,vector,inference', 1, 8081],
  ['Model Registry', 'model-registry', 'ai-ml', 'mlops,registry', 0, 5000],
  ['Postgres Cluster', 'postgres-cluster', 'databases', 'sql,database,postgres', 0, 5432],
  ['Redis Cache', 'redis-cache', 'databases', 'cache,nosql', 0, 6379],
  ['Document Database', 'document-database', 'databases', 'nosql,database', 0, 27017],
  ['Time-Series Database', 'time-series-database', 'databases', 'metrics,database', 0, 8086],
  ['Graph Database', 'graph-database', 'databases', 'graph,database', 0, 7687],
  ['Web Server', 'web-server', 'web', 'web,http', 0, 80],
  ['Headless CMS', 'headless-cms', 'web', 'cms,web', 0, 1337],
  ['Static Site Host', 'static-site-host', 'web', 'web,static', 0, 8080],
  ['Team Wiki', 'team-wiki', 'web', 'docs,web', 0, 3000],
  ['Metrics Stack', 'metrics-stack', 'monitoring', 'metrics,monitoring', 0, 9090],
  ['Log Collector', 'log-collector', 'monitoring', 'logging,monitoring', 0, 24224],
  ['Uptime Monitor', 'uptime-monitor', 'monitoring', 'monitoring,alerts', 0, 3001],
  ['Tracing Backend', 'tracing-backend', 'monitoring', 'tracing,monitoring', 0, 16686],
  ['Git Server', 'git-server', 'devops', 'git,ci', 0, 3000],
  ['CI Runner', 'ci-runner', 'devops', 'ci,build', 0, 8080],
  ['Container Registry', 'container-registry', 'devops', 'registry,containers', 0, 5000],
  ['Artifact Repository', 'artifact-repository', 'devops', 'build,registry', 0, 8081],
  ['Object Storage', 'object-storage', 'storage', 's3,storage', 0, 9000],
  ['Backup Agent', 'backup-agent', 'storage', 'backup,storage', 0, 8200],
  ['File Sync Server', 'file-sync-server', 'storage', 'files,storage', 0, 8384],
  ['VPN Gateway', 'vpn-gateway', 'networking', 'vpn,networking,mesh', 0, 51820],
  ['DNS Resolver', 'dns-resolver', 'networking', 'dns,networking', 0, 53],
  ['Reverse Proxy', 'reverse-proxy', 'networking', 'proxy,http,networking', 0, 443],
  ['Identity Provider', 'identity-provider', 'security', 'auth,oidc,security', 0, 8080],
  ['Secrets Vault', 'secrets-vault', 'security', 'secrets,security', 0, 8200],
  ['Vulnerability Scanner', 'vulnerability-scanner', 'security', 'security,scanner', 0, 4954],
  ['BI Dashboard', 'bi-dashboard', 'analytics', 'bi,analytics', 0, 3000],
  ['Event Pipeline', 'event-pipeline', 'analytics', 'etl,streaming,analytics', 0, 9092],
  ['Query Engine', 'query-engine', 'analytics', 'sql,analytics', 0, 8080],
  ['Media Server', 'media-server', 'media', 'media,streaming', 0, 8096],
  ['Transcoder', 'transcoder', 'media', 'media,gpu', 1, 8080],
  ['Photo Library', 'photo-library', 'media', 'media,photos', 0, 2342],
  ['Private LLM Gateway', 'private-llm-gateway', 'enterprise-ai', 'llm,gpu,inference,enterprise', 1, 8000],
  ['Fine-tuning Pipeline', 'fine-tuning-pipeline', 'enterprise-ai', 'llm,training,gpu', 1, 8000],
  ['Partner Connector', 'partner-connector', 'partner-tools', 'integration,api', 0, 8080],
  ['License Server', 'license-server', 'partner-tools', 'licensing,server', 0, 27000],
];

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  've',
  'ra',
  'no',
  'tu',
  'si',
  'be',
  'do',
  'fa',
  'ge',
  'hi',
  'ju',
  'ke',
  'li',
  'ma',
  'ne',
  'po',
  'qu',
  'ri',
  'sa',
  'te',
  'zo',
];
const EXTRA_TAGS = [
  'open-source',
  'self-hosted',
  'stable',
  'beta',
  'arm64',
  'amd64',
  'high-availability',
  'lightweight',
  'community',
  'official',
];
const OPENERS = [
  'A production-ready',
  'A lightweight',
  'A self-hosted',
  'A horizontally scalable',
  'A batteries-included',
  'An easy to operate',
];
const AUDIENCES = [
  'small teams',
  'edge clusters',
  'GPU nodes',
  'home labs',
  'regulated environments',
  'multi-tenant platforms',
  'research groups',
  'fleets of Core instances',
];
const CLOSERS = [
  'Ships with sensible defaults and health checks.',
  'Scales out behind the built-in proxy.',
  'Includes backups, metrics and a web console.',
  'Configured entirely through environment variables.',
  'Tested on amd64 and arm64 nodes.',
  'Upgrades in place without downtime.',
];

export interface OrgSeed {
  id: string;
  slug: string;
  grants: string[];
}

export const ORGS: { slug: string; name: string; tier: string; grants: string[] }[] = [
  { slug: 'acme', name: 'Acme Robotics', tier: 'enterprise', grants: ['enterprise-ai', 'partner-tools'] },
  { slug: 'globex', name: 'Globex Corporation', tier: 'pro', grants: ['partner-tools'] },
  { slug: 'initech', name: 'Initech', tier: 'free', grants: [] },
];

/** Categories, organizations (with subscriptions and access grants). Returns the organizations. */
export async function seedAccountsAndCategories(sql: Sql): Promise<OrgSeed[]> {
  for (const [i, c] of CATEGORIES.entries()) {
    await sql`insert into categories (name, slug, description, icon, sort_order, is_private)
              values (${c.name}, ${c.slug}, ${c.description}, ${c.icon}, ${i * 10}, ${c.isPrivate})`;
  }
  const orgs: OrgSeed[] = [];
  for (const o of ORGS) {
    const [row] = await sql<
      { id: string }[]
    >`insert into organizations (name, slug, tier) values (${o.name}, ${o.slug}, ${o.tier}) returning id`;
    await sql`insert into subscriptions (org_id, plan) values (${row!.id}, ${o.tier})`;
    for (const slug of o.grants) {
      await sql`insert into access_grants (org_id, category_id) select ${row!.id}, id from categories where slug = ${slug}`;
    }
    orgs.push({ id: row!.id, slug: o.slug, grants: o.grants });
  }
  return orgs;
}

/**
 * Inserts templates number `from`..`to` in one statement. About 3% are private templates owned by an
 * organization, 2% featured, ~9% in the private categories.
 */
export async function seedTemplates(sql: Sql, orgs: OrgSeed[], from: number, to: number): Promise<void> {
  if (to < from) return;
  const col = <K extends number>(k: K) => PRODUCTS.map((p) => p[k]);
  const orgIds = orgs.map((o) => o.id);
  await sql`
    with prod as (
      select * from unnest(
        ${col(0) as string[]}::text[], ${col(1) as string[]}::text[], ${col(2) as string[]}::text[],
        ${col(3) as string[]}::text[], ${col(4) as number[]}::int[], ${col(5) as number[]}::int[]
      ) with ordinality as p(pname, pslug, pcat, ptags, pgpu, pport, pidx)
    ),
    vocab as (
      select ${SYLLABLES}::text[] as syl, ${EXTRA_TAGS}::text[] as extra, ${OPENERS}::text[] as openers,
             ${AUDIENCES}::text[] as audiences, ${CLOSERS}::text[] as closers, ${orgIds}::uuid[] as orgs,
             (select count(*) from prod)::int as nprod
    ),
    raw as (
      select g.i, (g.i::bigint * 7919) % 331776 as code,
             random() as r1, random() as r2, random() as r3, random() as r4, random() as r5, random() as r6
        from generate_series(${from}::int, ${to}::int) as g(i)
    ),
    rows as (
      select r.*, p.*, v.*,
             initcap(v.syl[1 + (r.code / 13824) % 24] || v.syl[1 + (r.code / 576) % 24] || v.syl[1 + (r.code / 24) % 24] || v.syl[1 + r.code % 24]) as brand,
             now() - (r.r1 * interval '365 days') - (r.r2 * interval '1 day') as changed
        from raw r
        cross join vocab v
        join prod p on p.pidx = 1 + abs(hashtext('product' || r.i)) % v.nprod
    )
    insert into templates (
      name, slug, description, version, kind, category_id, org_id, image_name, image_tag, cpu_request,
      memory_request, gpu_count, vram_request, concurrent_jobs, env, env_schema, ports, volume_mounts,
      node_selector, required_network_types, tags, is_public, is_featured, min_tier, download_count,
      documentation, created_at, updated_at)
    select
      brand || ' ' || pname,
      lower(brand) || '-' || pslug,
      format('%s %s: %s %s for %s. %s', brand, pname, openers[1 + floor(r4 * 6)::int], lower(pname),
             audiences[1 + floor(r5 * 8)::int], closers[1 + floor(r6 * 6)::int]),
      format('%s.%s.%s', 1 + floor(r1 * 5)::int, floor(r2 * 20)::int, floor(r3 * 10)::int),
      'deployment',
      (select id from categories where slug = pcat),
      case when r3 < 0.03 then orgs[1 + i % array_length(orgs, 1)] end,
      format('registry.example.com/%s/%s', lower(brand), pslug),
      format('%s.%s.%s', 1 + floor(r1 * 5)::int, floor(r2 * 20)::int, floor(r3 * 10)::int),
      (array['250m', '500m', '1', '2', '4'])[1 + floor(r1 * 5)::int],
      (array['256Mi', '512Mi', '1Gi', '2Gi', '4Gi', '8Gi'])[1 + floor(r2 * 6)::int],
      case when pgpu > 0 then 1 + (r6 > 0.9)::int else 0 end,
      case when pgpu > 0 then (array['8Gi', '16Gi', '24Gi', '48Gi'])[1 + floor(r6 * 4)::int] else '' end,
      1 + floor(r2 * 4)::int,
      jsonb_build_array(jsonb_build_object('name', 'LOG_LEVEL', 'value', 'info'), jsonb_build_object('name', 'TZ', 'value', 'UTC'),
                        jsonb_build_object('name', 'PORT', 'value', pport::text)),
      jsonb_build_array(
        jsonb_build_object('name', 'ADMIN_PASSWORD', 'required', true, 'default_value', '', 'description', 'Password of the first administrator'),
        jsonb_build_object('name', 'DATA_DIR', 'required', false, 'default_value', '/data', 'description', 'Where the service keeps its data')),
      jsonb_build_array(jsonb_build_object('containerPort', pport, 'protocol', case when pport = 53 or pport = 51820 then 'UDP' else 'TCP' end)),
      jsonb_build_array(jsonb_build_object('name', 'data', 'mountPath', '/data')),
      case when pgpu > 0 then '{"accelerator": "nvidia"}'::jsonb else '{}'::jsonb end,
      case when r2 < 0.3 then array['public', 'mesh'] else array['public'] end,
      string_to_array(ptags, ',') || extra[1 + floor(r5 * 10)::int],
      r3 >= 0.03,
      r4 < 0.02,
      case when r5 < 0.8 then 'free' when r5 < 0.95 then 'pro' else 'enterprise' end,
      floor(power(r6, 3) * 100000)::bigint,
      format(E'# %s\n\n%s\n\n## Quick start\n\n1. Deploy the template from the catalog.\n'
             || E'2. Set ADMIN_PASSWORD (required) and, if you like, DATA_DIR.\n3. Open port %s and sign in as admin.\n\n'
             || E'## Configuration\n\n| Variable | Required | Default | Description |\n|---|---|---|---|\n'
             || E'| ADMIN_PASSWORD | yes | | Password of the first administrator |\n'
             || E'| DATA_DIR | no | /data | Where the service keeps its data |\n| LOG_LEVEL | no | info | debug, info, warn or error |\n\n'
             || E'## Upgrades\n\nChange the image tag and redeploy; data in the data volume is kept. Read the release notes of %s before a major upgrade.\n\n'
             || E'## Resources\n\nRequests %s CPU and %s of memory%s.\n',
             brand || ' ' || pname, brand || ' ' || pname || ' is ' || lower(openers[1 + floor(r4 * 6)::int]) || ' ' || lower(pname) || '.',
             pport, brand, (array['250m', '500m', '1', '2', '4'])[1 + floor(r1 * 5)::int],
             (array['256Mi', '512Mi', '1Gi', '2Gi', '4Gi', '8Gi'])[1 + floor(r2 * 6)::int],
             case when pgpu > 0 then ' and one GPU' else '' end),
      changed - (r5 * interval '200 days'),
      changed
    from rows`;
}

/** Brand words (first word of the name, lower-cased) of `n` random templates the organization can see. */
export async function sampleBrands(sql: Sql, orgId: string, n: number): Promise<string[]> {
  const rows = await sql<{ brand: string }[]>`
    select lower(split_part(t.name, ' ', 1)) as brand
      from templates t join categories c on c.id = t.category_id
     where t.org_id = ${orgId} or (t.is_public and not c.is_private)
        or (c.is_private and exists (select 1 from access_grants g where g.org_id = ${orgId} and g.category_id = c.id))
     order by random() limit ${n}`;
  return rows.map((r) => r.brand);
}

/** Slugs of public templates in public categories (visible to every caller). */
export async function samplePublicSlugs(sql: Sql, n: number): Promise<string[]> {
  const rows = await sql<{ slug: string }[]>`
    select t.slug from templates t join categories c on c.id = t.category_id
     where t.is_public and not c.is_private order by random() limit ${n}`;
  return rows.map((r) => r.slug);
}
