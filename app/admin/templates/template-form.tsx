'use client';
/**
 * Create/edit form covering every template field of the spec plus the admin-only ones. Validation is the
 * server's (the same zod schema as REST): its errors are shown next to the fields they name.
 */
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { Button, buttonClass, Card, Checkbox, ErrorState, Field, Input, Select, Textarea } from '../../_components/ui';
import { RowsEditor } from './rows-editor';
import { templatesReturnHref } from '../list-params';

type AdminTemplate = RouterOutputs['admin']['createTemplate']['template'];
const MASK = '********';

type EnvRow = { name: string; value: string };
type EnvSchemaRow = { name: string; required: boolean; default_value: string; description: string };
type PortRow = { containerPort: number | ''; protocol: string };
type VolumeRow = { name: string; mountPath: string };

interface FormState {
  name: string;
  slug: string;
  description: string;
  version: string;
  kind: string;
  category_id: string;
  org_id: string;
  image_name: string;
  image_tag: string;
  cpu_request: string;
  memory_request: string;
  gpu_count: string;
  vram_request: string;
  concurrent_jobs: string;
  env: EnvRow[];
  env_schema: EnvSchemaRow[];
  ports: PortRow[];
  volume_mounts: VolumeRow[];
  node_selector: string;
  required_network_types: string;
  tags: string;
  is_public: boolean;
  is_featured: boolean;
  min_tier: string;
  documentation: string;
  registry_url: string;
  registry_credentials: string;
  remove_credentials: boolean;
  secret_refs: string;
  command: string;
  tolerations: string;
  icon_url: string;
}

function initialState(t?: AdminTemplate): FormState {
  return {
    name: t?.name ?? '',
    slug: t?.slug ?? '',
    description: t?.description ?? '',
    version: t?.version ?? '',
    kind: t?.kind ?? 'deployment',
    category_id: t?.category_id ?? '',
    org_id: t?.org_id ?? '',
    image_name: t?.image_name ?? '',
    image_tag: t?.image_tag ?? 'latest',
    cpu_request: t?.cpu_request ?? '',
    memory_request: t?.memory_request ?? '',
    gpu_count: String(t?.gpu_count ?? 0),
    vram_request: t?.vram_request ?? '',
    concurrent_jobs: String(t?.concurrent_jobs ?? 1),
    env: t?.env ?? [],
    env_schema: t?.env_schema ?? [],
    ports: t?.ports ?? [],
    volume_mounts: t?.volume_mounts ?? [],
    node_selector: Object.entries(t?.node_selector ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    required_network_types: (t?.required_network_types ?? []).join(', '),
    tags: (t?.tags ?? []).join(', '),
    is_public: t?.is_public ?? true,
    is_featured: t?.is_featured ?? false,
    min_tier: t?.min_tier ?? 'free',
    documentation: t?.documentation ?? '',
    registry_url: t?.registry_url ?? '',
    registry_credentials: t?.registry_credentials ?? '',
    remove_credentials: false,
    secret_refs: (t?.secret_refs ?? []).join(', '),
    command: (t?.command ?? []).join('\n'),
    tolerations: t && t.tolerations.length > 0 ? JSON.stringify(t.tolerations, null, 2) : '',
    icon_url: t?.icon_url ?? '',
  };
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const lines = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);
const num = (s: string) => (s.trim() === '' ? Number.NaN : Number(s));

/** Form state → API payload; a local parse problem (JSON of tolerations, node selector lines) is reported per field. */
function toPayload(
  f: FormState,
  editing: boolean,
): { payload?: Record<string, unknown>; local?: Record<string, string> } {
  const local: Record<string, string> = {};
  const nodeSelector: Record<string, string> = {};
  for (const line of lines(f.node_selector)) {
    const at = line.indexOf('=');
    if (at <= 0) local.node_selector = `"${line}" is not key=value`;
    else nodeSelector[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  let tolerations: unknown = [];
  if (f.tolerations.trim()) {
    try {
      tolerations = JSON.parse(f.tolerations);
    } catch {
      local.tolerations = 'must be a JSON array, e.g. [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]';
    }
  }
  if (Object.keys(local).length > 0) return { local };
  const payload: Record<string, unknown> = {
    name: f.name,
    slug: f.slug,
    description: f.description,
    version: f.version,
    kind: f.kind,
    category_id: f.category_id,
    org_id: f.org_id.trim() === '' ? null : f.org_id.trim(),
    image_name: f.image_name,
    image_tag: f.image_tag,
    cpu_request: f.cpu_request,
    memory_request: f.memory_request,
    gpu_count: num(f.gpu_count),
    vram_request: f.vram_request,
    concurrent_jobs: num(f.concurrent_jobs),
    env: f.env,
    env_schema: f.env_schema,
    ports: f.ports,
    volume_mounts: f.volume_mounts,
    node_selector: nodeSelector,
    required_network_types: list(f.required_network_types),
    tags: list(f.tags),
    is_public: f.is_public,
    is_featured: f.is_featured,
    min_tier: f.min_tier,
    documentation: f.documentation,
    registry_url: f.registry_url,
    secret_refs: list(f.secret_refs),
    command: lines(f.command),
    tolerations,
    icon_url: f.icon_url,
  };
  if (f.remove_credentials) payload.registry_credentials = null;
  else if (f.registry_credentials !== '' && f.registry_credentials !== MASK)
    payload.registry_credentials = f.registry_credentials;
  else if (!editing && f.registry_credentials === '') delete payload.registry_credentials;
  return { payload };
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card title={title}>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">{children}</div>
    </Card>
  );
}

export function TemplateForm({ template }: { template?: AdminTemplate }) {
  const router = useRouter();
  // Back to the list as it was (its search and page), from the Edit link's ?from=.
  const listHref = templatesReturnHref(useSearchParams().get('from'));
  const utils = trpc.useUtils();
  const categories = trpc.admin.listCategories.useQuery({});
  const [f, setF] = useState<FormState>(() => initialState(template));
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const editing = template !== undefined;

  const onSaved = async (t: AdminTemplate) => {
    toast.success(`Template ${t.name} ${editing ? 'saved' : 'created'}`);
    await utils.admin.listTemplates.invalidate();
    await utils.dashboard.adminTemplate.invalidate();
    router.push(listHref);
    router.refresh();
  };
  // Errors are shown in the form (beside their fields, or above the button): once, not also in a toast.
  const create = trpc.admin.createTemplate.useMutation({ onSuccess: (d) => onSaved(d.template) });
  const update = trpc.admin.updateTemplate.useMutation({ onSuccess: (d) => onSaved(d.template) });
  const mutation = editing ? update : create;
  const server = fieldErrors(mutation.error);
  if (mutation.error?.data?.code === 'CONFLICT' && /slug/i.test(mutation.error.message))
    server.slug ??= mutation.error.message.replace(/^slug:\s*/, '');
  const errors = { ...server, ...localErrors };
  const unplaced = mutation.error && Object.keys(server).length === 0 ? errorMessage(mutation.error) : null;

  const text = (
    key: keyof FormState,
    label: ReactNode,
    opts: { hint?: string; mono?: boolean; required?: boolean; type?: string; placeholder?: string } = {},
  ) => (
    <Field id={`t-${key}`} label={label} hint={opts.hint} error={errors[key]}>
      <Input
        id={`t-${key}`}
        type={opts.type ?? 'text'}
        value={String(f[key])}
        required={opts.required}
        placeholder={opts.placeholder}
        onChange={(e) => setF({ ...f, [key]: e.target.value })}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] ? `t-${key}-error` : opts.hint ? `t-${key}-hint` : undefined}
        className={opts.mono ? 'font-mono' : undefined}
      />
    </Field>
  );

  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        const { payload, local } = toPayload(f, editing);
        setLocalErrors(local ?? {});
        if (!payload) return;
        if (editing) update.mutate({ id: template.id, ...payload } as never);
        else create.mutate(payload as never);
      }}
    >
      {unplaced ? <ErrorState title="The template was not saved" message={unplaced} /> : null}
      {Object.keys(errors).length > 0 && !unplaced ? (
        <ErrorState
          title="The template was not saved"
          message="Some fields are not valid: see the messages next to them."
        />
      ) : null}

      <Section title="Basics">
        {text('name', 'Name', { required: true })}
        {text('slug', 'Slug', {
          required: true,
          mono: true,
          hint: 'Lowercase letters, digits and hyphens; used in /catalog/templates/<slug>.',
        })}
        <Field id="t-description" label="Description" error={errors.description} className="sm:col-span-2">
          <Textarea
            id="t-description"
            rows={2}
            value={f.description}
            onChange={(e) => setF({ ...f, description: e.target.value })}
            aria-invalid={errors.description ? true : undefined}
            className="font-sans"
          />
        </Field>
        <Field id="t-category_id" label="Category" error={errors.category_id}>
          <Select
            id="t-category_id"
            value={f.category_id}
            required
            onChange={(e) => setF({ ...f, category_id: e.target.value })}
            aria-invalid={errors.category_id ? true : undefined}
          >
            <option value="">{categories.isPending ? 'Loading…' : 'Choose a category'}</option>
            {categories.data?.categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
                {c.is_private ? ' (private)' : ''}
              </option>
            ))}
          </Select>
        </Field>
        {text('version', 'Version', { placeholder: '1.0.0' })}
        {text('kind', 'Kind', { mono: true, hint: 'e.g. deployment' })}
        <Field id="t-min_tier" label="Minimum tier" error={errors.min_tier}>
          <Select id="t-min_tier" value={f.min_tier} onChange={(e) => setF({ ...f, min_tier: e.target.value })}>
            <option value="free">free</option>
            <option value="pro">pro</option>
            <option value="enterprise">enterprise</option>
          </Select>
        </Field>
        {text('tags', 'Tags', { hint: 'Comma-separated, e.g. llm, gpu' })}
        {text('icon_url', 'Icon URL', { type: 'url', placeholder: 'https://…' })}
        {text('org_id', 'Owner organization id', {
          mono: true,
          hint: 'Optional: the organization that owns a private template. Empty for a platform template.',
        })}
        <div className="space-y-3 sm:col-span-2">
          <Checkbox
            id="t-is_public"
            label="Public"
            hint="Visible to everyone when its category is not private."
            checked={f.is_public}
            onChange={(e) => setF({ ...f, is_public: e.target.checked })}
          />
          <Checkbox
            id="t-is_featured"
            label="Featured"
            checked={f.is_featured}
            onChange={(e) => setF({ ...f, is_featured: e.target.checked })}
          />
        </div>
      </Section>

      <Section title="Image and registry">
        {text('image_name', 'Image name', { required: true, mono: true, placeholder: 'registry.example.com/team/app' })}
        {text('image_tag', 'Image tag', { mono: true })}
        {text('registry_url', 'Registry URL', { type: 'url', placeholder: 'https://registry.example.com' })}
        <div className="space-y-2">
          <Field
            id="t-registry_credentials"
            label="Registry credentials"
            hint={
              template?.registry_credentials
                ? 'Stored (encrypted). Leave as is to keep them, or type new ones.'
                : 'Optional, e.g. user:token. Stored encrypted, never shown again.'
            }
            error={errors.registry_credentials}
          >
            <Input
              id="t-registry_credentials"
              type="password"
              autoComplete="new-password"
              value={f.registry_credentials}
              disabled={f.remove_credentials}
              onChange={(e) => setF({ ...f, registry_credentials: e.target.value })}
              aria-invalid={errors.registry_credentials ? true : undefined}
            />
          </Field>
          {template?.registry_credentials ? (
            <Checkbox
              id="t-remove_credentials"
              label="Remove the stored credentials"
              checked={f.remove_credentials}
              onChange={(e) => setF({ ...f, remove_credentials: e.target.checked })}
            />
          ) : null}
        </div>
        {text('secret_refs', 'Secret references', { hint: 'Comma-separated names of secrets on the instance' })}
        <Field
          id="t-command"
          label="Command"
          hint="One argument per line; empty for the image's default."
          error={errors.command}
        >
          <Textarea
            id="t-command"
            rows={3}
            value={f.command}
            onChange={(e) => setF({ ...f, command: e.target.value })}
            aria-invalid={errors.command ? true : undefined}
          />
        </Field>
      </Section>

      <Section title="Resources">
        {text('cpu_request', 'CPU request', { mono: true, placeholder: '500m' })}
        {text('memory_request', 'Memory request', { mono: true, placeholder: '512Mi' })}
        {text('gpu_count', 'GPUs', { type: 'number' })}
        {text('vram_request', 'VRAM request', { mono: true, placeholder: '8Gi' })}
        {text('concurrent_jobs', 'Concurrent jobs', { type: 'number' })}
        {text('required_network_types', 'Required network types', { hint: 'Comma-separated, e.g. public, mesh' })}
        <Field id="t-node_selector" label="Node selector" hint="One key=value per line" error={errors.node_selector}>
          <Textarea
            id="t-node_selector"
            rows={3}
            value={f.node_selector}
            onChange={(e) => setF({ ...f, node_selector: e.target.value })}
            aria-invalid={errors.node_selector ? true : undefined}
          />
        </Field>
        <Field
          id="t-tolerations"
          label="Tolerations (JSON)"
          hint='e.g. [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]'
          error={errors.tolerations}
        >
          <Textarea
            id="t-tolerations"
            rows={3}
            value={f.tolerations}
            onChange={(e) => setF({ ...f, tolerations: e.target.value })}
            aria-invalid={errors.tolerations ? true : undefined}
          />
        </Field>
      </Section>

      <Card title="Ports, volumes and environment">
        <div className="space-y-6">
          <RowsEditor<PortRow>
            id="ports"
            label="Ports"
            rows={f.ports}
            blank={{ containerPort: '', protocol: 'TCP' }}
            columns={[
              { key: 'containerPort', label: 'Container port', kind: 'number' },
              { key: 'protocol', label: 'Protocol', kind: 'select', options: ['TCP', 'UDP', 'SCTP'] },
            ]}
            onChange={(ports) => setF({ ...f, ports })}
            errors={errors}
            addLabel="Add port"
          />
          <RowsEditor<VolumeRow>
            id="volume_mounts"
            label="Volume mounts"
            rows={f.volume_mounts}
            blank={{ name: '', mountPath: '' }}
            columns={[
              { key: 'name', label: 'Volume name', kind: 'text' },
              { key: 'mountPath', label: 'Mount path', kind: 'text', placeholder: '/data' },
            ]}
            onChange={(volume_mounts) => setF({ ...f, volume_mounts })}
            errors={errors}
            addLabel="Add volume"
          />
          <RowsEditor<EnvSchemaRow>
            id="env_schema"
            label="Environment schema"
            rows={f.env_schema}
            blank={{ name: '', required: false, default_value: '', description: '' }}
            columns={[
              { key: 'name', label: 'Variable', kind: 'text' },
              { key: 'default_value', label: 'Default', kind: 'text' },
              { key: 'description', label: 'Description', kind: 'text' },
              { key: 'required', label: 'Required', kind: 'checkbox' },
            ]}
            onChange={(env_schema) => setF({ ...f, env_schema })}
            errors={errors}
            addLabel="Add variable to the schema"
          />
          <RowsEditor<EnvRow>
            id="env"
            label="Preset environment values"
            rows={f.env}
            blank={{ name: '', value: '' }}
            columns={[
              { key: 'name', label: 'Variable', kind: 'text' },
              { key: 'value', label: 'Value', kind: 'text' },
            ]}
            onChange={(env) => setF({ ...f, env })}
            errors={errors}
            addLabel="Add preset value"
          />
        </div>
      </Card>

      <Card title="Documentation" description="Markdown, shown on the template's catalog page (HTML is not rendered).">
        <Field id="t-documentation" label="Documentation (Markdown)" error={errors.documentation}>
          <Textarea
            id="t-documentation"
            rows={12}
            value={f.documentation}
            onChange={(e) => setF({ ...f, documentation: e.target.value })}
            aria-invalid={errors.documentation ? true : undefined}
          />
        </Field>
      </Card>

      <div className="sticky bottom-0 -mx-4 flex flex-wrap justify-end gap-2 border-t border-zinc-200 bg-zinc-50/95 px-4 py-3">
        <Link href={listHref} className={buttonClass('secondary')}>
          Cancel
        </Link>
        <Button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? 'Saving…' : editing ? 'Save template' : 'Create template'}
        </Button>
      </div>
    </form>
  );
}
