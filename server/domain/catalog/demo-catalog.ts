/**
 * The demo catalog: six categories and 32 templates with their real upstream images, ports, data paths and
 * variables, and beside each template a REFERENCE record of what the image's own documentation says (documented
 * ports, volumes, variables with their defaults) and where (its official documentation page). The data is
 * demo-catalog.json, in the admin API's own input shapes: server/api/demoCatalog.ts validates it with the schemas
 * that create categories and templates, and seed.ts writes it. tests/catalog/demo-catalog.test.ts checks every
 * template against its reference. The three "enterprise-ai" templates are fictional examples of a licensed,
 * private category and say so. docs/demo-catalog.md lists the sources and what could not be verified.
 */
import type { categories, Port } from '../../db/schema';
import type { TemplateValues } from './templateAdmin';

export type DemoReference = {
  /** The image's official documentation page (or, for a fictional template, the word "fictional"). */
  source: string;
  /**
   * How the record was checked: 'searched' = read in the documentation through the reference search while writing
   * this file; 'recalled' = written from the documentation as known, not re-read (see docs/demo-catalog.md);
   * 'fictional' = an invented example.
   */
  checked: 'searched' | 'recalled' | 'fictional';
  ports: Port[];
  /** Documented data paths inside the container. */
  volumes: string[];
  /** Documented variables and their documented defaults ('' when the documentation gives none). */
  variables: Record<string, string>;
  note?: string;
};

/** A template's values as the seed writes them (its category and documentation come from the seed). */
export type DemoTemplateValues = TemplateValues &
  Required<
    Pick<
      TemplateValues,
      | 'name'
      | 'slug'
      | 'description'
      | 'imageName'
      | 'imageTag'
      | 'cpuRequest'
      | 'memoryRequest'
      | 'gpuCount'
      | 'vramRequest'
      | 'envSchema'
      | 'ports'
      | 'volumeMounts'
      | 'command'
    >
  >;

export type DemoTemplate = {
  /** Its category's slug. */
  category: string;
  values: DemoTemplateValues;
  /** The first paragraph of the documentation: what it is. */
  about: string;
  firstSteps: string[];
  reference: DemoReference;
};

export type DemoCategory = Required<
  Pick<typeof categories.$inferInsert, 'name' | 'slug' | 'description' | 'icon' | 'sortOrder' | 'isPrivate'>
>;

export type DemoCatalog = { categories: DemoCategory[]; templates: DemoTemplate[] };

/** Core's rule: a variable whose name has one of these as a word part takes a bound secret, never a literal. */
export const CREDENTIAL_NAME_RE = /(^|[^A-Za-z0-9])(password|secret|token|key|credential)s?([^A-Za-z0-9]|$)/i;

const fence = (s: string) => `\`${s}\``;

/** The Markdown documentation of a template: what it is, first steps, the variables that matter, ports, storage. */
export function documentationOf({ values: t, about, firstSteps, reference }: DemoTemplate): string {
  const lines: string[] = [`# ${t.name}`, '', about, ''];
  if (reference.checked !== 'fictional') {
    lines.push(`Image: ${fence(`${t.imageName}:${t.imageTag}`)}. Upstream documentation: <${reference.source}>.`, '');
  }
  lines.push('## First steps', '', ...firstSteps.map((s, i) => `${i + 1}. ${s}`), '');
  lines.push('## Configuration', '');
  // The declared variables are listed once, from the template's environment schema, by every page and API that
  // shows the template (the Hub's and Core's template pages, get_template): not a second time in its prose.
  if (t.envSchema.length === 0) {
    lines.push('This template declares no variables.', '');
  } else {
    const required = t.envSchema.filter((e) => e.required).map((e) => fence(e.name));
    lines.push(
      `The template declares ${t.envSchema.length === 1 ? 'one variable' : `${t.envSchema.length} variables`}, listed ` +
        `with their defaults in its environment schema${required.length > 0 ? `; ${required.join(', ')} must be set` : ''}.`,
      '',
    );
  }
  const others = Object.keys(reference.variables).filter((n) => !t.envSchema.some((e) => e.name === n));
  if (others.length > 0) {
    lines.push(
      `Also documented for the image, not declared by this template: ${others.map((n) => `${fence(n)} (${fence(reference.variables[n]!)})`).join(', ')}.`,
      '',
    );
  }
  const credentials = t.envSchema.filter((e) => CREDENTIAL_NAME_RE.test(e.name)).map((e) => fence(e.name));
  if (credentials.length > 0) {
    lines.push(
      `Credentials (${credentials.join(', ')}) are bound to Core secrets: Core refuses a literal value for a ` +
        'variable whose name contains PASSWORD, SECRET, TOKEN, KEY or CREDENTIAL. Create the secret on the instance ' +
        'and bind it when deploying.',
      '',
    );
  }
  if (t.command && t.command.length > 0) lines.push(`Command: ${fence(t.command.join(' '))}`, '');
  lines.push('## Ports and storage', '');
  for (const p of t.ports) lines.push(`- ${p.containerPort}/${p.protocol}`);
  for (const m of t.volumeMounts) lines.push(`- volume ${fence(m.name)} at ${fence(m.mountPath)}`);
  const gpu = t.gpuCount;
  lines.push(
    '',
    `Requests: ${t.cpuRequest} CPU, ${t.memoryRequest} memory${gpu ? `, ${gpu} GPU with ${t.vramRequest} VRAM` : ''}.`,
    '',
  );
  return lines.join('\n');
}
