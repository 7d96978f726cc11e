/**
 * The demo catalog (server/domain/catalog/demo-catalog.json) is real: every seeded template's ports, volumes and
 * variables match the reference record of its image's documentation written beside it; credentials carry no
 * default and are documented as bound to Core secrets; every documentation text names its image's variables,
 * ports and data paths; no two descriptions are the same; the three private templates say they are fictional.
 * The rows checked are the ones `seedCatalog` writes, read back from the database and through the REST API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { templates } from '../../server/db/schema';
import { CreateTemplateInput } from '../../server/api/schemas/templateInput';
import { demoCatalog, parseDemoCatalog, seedDemoCatalog } from '../../server/api/demoCatalog';
import data from '../../server/domain/catalog/demo-catalog.json';
import { CREDENTIAL_NAME_RE } from '../../server/domain/catalog/demo-catalog';
import { api } from '../helpers';

type Row = typeof templates.$inferSelect;
let rows: Row[];
const DEMO_TEMPLATES = demoCatalog().templates;
const reference = new Map(DEMO_TEMPLATES.map((t) => [t.values.slug, t.reference]));
const portKey = (p: { containerPort: number; protocol: string }) => `${p.containerPort}/${p.protocol}`;
const sorted = (xs: string[]) => [...xs].sort();

beforeAll(async () => {
  expect(await seedDemoCatalog()).toEqual({ categories: 6, templatesInserted: 32, templatesTotal: 32 });
  rows = await (await getDb()).select().from(templates);
});

describe('the seed', () => {
  it('writes the 32 templates once: a second seed inserts nothing and leaves an edited template alone', async () => {
    expect(rows).toHaveLength(32);
    expect(sorted(rows.map((r) => r.slug))).toEqual(sorted(DEMO_TEMPLATES.map((t) => t.values.slug)));
    const db = await getDb();
    const { eq } = await import('drizzle-orm');
    await db.update(templates).set({ description: 'edited by an operator' }).where(eq(templates.slug, 'redis'));
    expect(await seedDemoCatalog()).toEqual({ categories: 6, templatesInserted: 0, templatesTotal: 32 });
    const [redis] = await db.select().from(templates).where(eq(templates.slug, 'redis'));
    expect(redis!.description).toBe('edited by an operator');
    await db
      .update(templates)
      .set({ description: DEMO_TEMPLATES.find((t) => t.values.slug === 'redis')!.values.description })
      .where(eq(templates.slug, 'redis'));
  });

  it('writes only values the admin API itself would accept', () => {
    for (const r of rows) {
      const parsed = CreateTemplateInput.safeParse({
        name: r.name,
        slug: r.slug,
        category_id: r.categoryId,
        image_name: r.imageName,
        image_tag: r.imageTag,
        version: r.version,
        cpu_request: r.cpuRequest,
        memory_request: r.memoryRequest,
        vram_request: r.vramRequest,
        gpu_count: r.gpuCount,
        env: r.env,
        env_schema: r.envSchema,
        ports: r.ports,
        volume_mounts: r.volumeMounts,
        command: r.command,
        tags: r.tags,
        documentation: r.documentation,
        registry_url: r.registryUrl,
      });
      expect(parsed.success, `${r.slug}: ${parsed.error?.message}`).toBe(true);
    }
  });
});

describe('the data file', () => {
  it("is validated by the admin API's schemas: a bad field or an unknown category is refused, named", () => {
    const copy = structuredClone(data) as any;
    copy.templates[1].template.ports[0].containerPort = 70_000;
    copy.templates[2].template.memory_request = '8 gigabytes';
    delete copy.categories[0].icon;
    expect(() => parseDemoCatalog(copy)).toThrow(/templates\[1\]\.template\.ports\[0\]\.containerPort/);
    expect(() => parseDemoCatalog(copy)).toThrow(/templates\[2\]\.template\.memory_request/);
    expect(() => parseDemoCatalog(copy)).toThrow(/categories\[0\]\.icon/);
    // The categories are checked once every entry is well-formed.
    const elsewhere = structuredClone(data) as any;
    elsewhere.templates[3].category = 'no-such-category';
    expect(() => parseDemoCatalog(elsewhere)).toThrow(/no category "no-such-category"\s+→ at templates\[3\]\.category/);
    expect(parseDemoCatalog(data)).toEqual(demoCatalog());
  });
});

describe('every template matches the documentation of its image', () => {
  it('has a reference with its source: an https documentation page, or "fictional" for the private examples', () => {
    for (const t of DEMO_TEMPLATES) {
      const slug = t.values.slug;
      if (t.category === 'enterprise-ai') {
        expect(t.reference.checked, slug).toBe('fictional');
        expect(t.values.imageName, slug).toMatch(/^registry\.example\.com\//);
      } else {
        expect(t.reference.checked, slug).not.toBe('fictional');
        expect(t.reference.source, slug).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+\//);
      }
    }
  });

  it('exposes exactly the documented ports, with their protocols', () => {
    for (const r of rows) {
      expect(sorted(r.ports.map(portKey)), r.slug).toEqual(sorted(reference.get(r.slug)!.ports.map(portKey)));
      expect(r.ports.length, r.slug).toBeGreaterThan(0);
    }
  });

  it('mounts exactly the documented data paths', () => {
    for (const r of rows) {
      expect(sorted(r.volumeMounts.map((m) => m.mountPath)), r.slug).toEqual(sorted(reference.get(r.slug)!.volumes));
    }
  });

  it('declares only documented variables, with their documented defaults; credentials never carry one', () => {
    for (const r of rows) {
      const documented = reference.get(r.slug)!.variables;
      for (const e of r.envSchema) {
        expect(Object.keys(documented), `${r.slug}: ${e.name} is not in the reference`).toContain(e.name);
        if (CREDENTIAL_NAME_RE.test(e.name)) {
          expect(e.default_value, `${r.slug}: credential ${e.name} has a default`).toBe('');
        } else {
          expect(e.default_value, `${r.slug}: default of ${e.name}`).toBe(documented[e.name]);
        }
      }
      for (const e of r.env) {
        expect(Object.keys(documented), `${r.slug}: fixed ${e.name} is not in the reference`).toContain(e.name);
        expect(CREDENTIAL_NAME_RE.test(e.name), `${r.slug}: fixed credential ${e.name}`).toBe(false);
      }
    }
  });

  it('requires the credentials the images need to start safely', () => {
    const required = (slug: string) =>
      rows
        .find((r) => r.slug === slug)!
        .envSchema.filter((e) => e.required)
        .map((e) => e.name);
    expect(required('postgresql')).toEqual(['POSTGRES_PASSWORD']);
    expect(required('mariadb')).toEqual(['MARIADB_ROOT_PASSWORD']);
    expect(required('grafana')).toEqual(['GF_SECURITY_ADMIN_PASSWORD']);
    expect(required('minio')).toEqual(['MINIO_ROOT_PASSWORD']);
    expect(required('woodpecker')).toEqual(['WOODPECKER_HOST', 'WOODPECKER_AGENT_SECRET']);
    const port = (slug: string) => rows.find((r) => r.slug === slug)!.ports.map(portKey);
    expect(port('postgresql')).toEqual(['5432/TCP']);
    expect(port('caddy')).toEqual(['80/TCP', '443/TCP', '443/UDP']);
    expect(port('grafana')).toEqual(['3000/TCP']);
    expect(port('mariadb')).toEqual(['3306/TCP']);
  });
});

describe('descriptions and documentation', () => {
  it('no two descriptions are the same, and none is the old boilerplate', () => {
    const descriptions = rows.map((r) => r.description);
    expect(new Set(descriptions).size).toBe(32);
    for (const d of descriptions) {
      expect(d).not.toMatch(/packaged for Core|sensible defaults/);
      expect(d.length).toBeGreaterThan(40);
    }
  });

  it("every documentation names its image's undeclared and required variables, ports and data paths, and has first steps", () => {
    for (const r of rows) {
      const ref = reference.get(r.slug)!;
      const doc = r.documentation;
      expect(doc, r.slug).toMatch(new RegExp(`^# ${r.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
      expect(doc, r.slug).toContain('## First steps');
      expect(doc, r.slug).toContain('## Configuration');
      // Declared variables are listed once, from env_schema (both template pages, get_template); the prose names
      // the image's other documented variables, and no second variables table.
      expect(doc, r.slug).not.toMatch(/^\|.*Variable.*\|$/m);
      for (const name of Object.keys(ref.variables)) {
        if (r.envSchema.some((e) => e.name === name)) continue;
        expect(doc, `${r.slug} names ${name}`).toContain(`\`${name}\``);
      }
      for (const e of r.envSchema.filter((v) => v.required))
        expect(doc, `${r.slug} names required ${e.name}`).toContain(`\`${e.name}\``);
      for (const p of ref.ports)
        expect(doc, `${r.slug} names port ${p.containerPort}`).toContain(`${p.containerPort}/${p.protocol}`);
      for (const path of ref.volumes) expect(doc, `${r.slug} names ${path}`).toContain(`\`${path}\``);
      if (ref.checked !== 'fictional') expect(doc, r.slug).toContain(`\`${r.imageName}:${r.imageTag}\``);
    }
  });

  it('says that credentials are bound to Core secrets wherever a template has one', () => {
    for (const r of rows) {
      const credentials = r.envSchema.filter((e) => CREDENTIAL_NAME_RE.test(e.name));
      if (credentials.length === 0) continue;
      expect(r.documentation, r.slug).toContain('are bound to Core secrets');
      for (const c of credentials) expect(c.description, `${r.slug}: ${c.name}`).toMatch(/bind a Core secret/);
    }
    expect(rows.filter((r) => r.envSchema.some((e) => CREDENTIAL_NAME_RE.test(e.name))).length).toBeGreaterThan(15);
  });

  it('the private templates say plainly that they are fictional examples', () => {
    const privates = rows.filter(
      (r) => DEMO_TEMPLATES.find((t) => t.values.slug === r.slug)!.category === 'enterprise-ai',
    );
    expect(sorted(privates.map((r) => r.slug))).toEqual(['llama-enterprise', 'private-rag', 'speech-to-text']);
    for (const r of privates) {
      expect(r.description, r.slug).toMatch(/^Fictional example/);
      expect(r.documentation, r.slug).toContain('**This template is fictional.**');
      expect(r.documentation, r.slug).toContain('does not exist');
    }
  });
});

describe('what callers read', () => {
  it('the REST API answers PostgreSQL as the image documents it', async () => {
    const res = await api('/catalog/templates/postgresql');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      image_name: 'postgres',
      image_tag: '17.2',
      ports: [{ containerPort: 5432, protocol: 'TCP' }],
      volume_mounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
    });
    expect(res.body.env_schema.find((e: any) => e.name === 'POSTGRES_PASSWORD')).toMatchObject({
      required: true,
      default_value: '',
    });
    expect(res.body.documentation).toContain('POSTGRES_PASSWORD');
  });

  it('searches the e2e suite relies on find one template each (descriptions do not name other products)', async () => {
    const slugs = async (q: string) =>
      ((await api(`/catalog/templates?${q}`)).body.templates as { slug: string }[]).map((t) => t.slug);
    expect(await slugs('search=grafana')).toEqual(['grafana']);
    expect(await slugs('search=postgres')).toEqual(['postgresql']);
    expect(await slugs('search=graf&category=monitoring')).toEqual(['grafana']);
    expect((await api('/catalog/templates?limit=100')).body.pagination.total).toBe(29);
  });
});
