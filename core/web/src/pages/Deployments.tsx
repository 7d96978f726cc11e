import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useDeferredValue, useId, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { core } from '../api';
import { ErrorNotice, Field, formatDate, ListTable, PageHeading, Pager, useMe } from '../components';
import { StateBadge } from '../deploymentStatus';
import { hub, type Deployment, type EnvValue, type HostPort, type Template } from '../hub';
import { isCredentialName } from '@shared/tokens/credential-names';

const isBinding = (v: EnvValue | undefined): v is { secret: string } => typeof v === 'object' && v !== null;

/** Deployments: what each should run (desired) and what the engine reports (observed); each opens its own page. */
export function Deployments() {
  const { isAdmin } = useMe();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<string | null>(null);
  // Polled like the deployment page: states change as the reconciler works.
  const list = useQuery({
    queryKey: ['deployments', page],
    queryFn: () => hub.deployments({ page }),
    refetchInterval: 5_000,
  });
  const columns = ['Name', 'Template', 'Variables', 'State', 'Created', ...(isAdmin ? [''] : [])];
  return (
    <>
      <PageHeading>Deployments</PageHeading>
      <p className="muted">
        Core runs each deployment on its container engine and keeps it as asked (running or stopped); without an engine
        it keeps the desired state only (the overview says which). Open a deployment for its status, published ports,
        actions and logs. A variable holds a value or is bound to a secret: everyone sees which secret, only admins can
        read its value (on the Secrets page).
      </p>
      {isAdmin && <DeploymentForm key="new" />}
      <ErrorNotice error={list.error} />
      {list.data &&
        (list.data.deployments.length === 0 ? (
          <p>No deployments yet.</p>
        ) : (
          <>
            <ListTable caption="Deployments" columns={columns}>
              {list.data.deployments.map((d) => (
                <Fragment key={d.id}>
                  <tr>
                    <th scope="row" data-label="Name" className="name-cell">
                      <Link href={`/deployments/${encodeURIComponent(d.id)}`} title={d.name}>
                        {d.name}
                      </Link>
                    </th>
                    <td data-label="Template">
                      <code>{d.template_slug}</code> {d.template_version}
                      {d.status === 'template_missing' && <span className="muted"> (left the catalog)</span>}
                    </td>
                    <td data-label="Variables">
                      <Variables deployment={d} />
                    </td>
                    <td data-label="State">
                      <StateBadge deployment={d} />
                      {d.desired_state === 'stopped' && d.observed.state !== 'exited' && (
                        <span className="muted"> · asked to stop</span>
                      )}
                      {d.observed.update_available && <span className="muted"> · update available</span>}
                      {d.observed.needs_restart && <span className="muted"> · restart to use a changed secret</span>}
                    </td>
                    <td data-label="Created">
                      {formatDate(d.created_at)} by {d.created_by}
                    </td>
                    {isAdmin && (
                      <td>
                        <button
                          type="button"
                          onClick={() => setEditing(editing === d.id ? null : d.id)}
                          aria-expanded={editing === d.id}
                          aria-label={`${editing === d.id ? 'Close' : 'Edit'} ${d.name}`}
                        >
                          {editing === d.id ? 'Close' : 'Edit'}
                        </button>
                      </td>
                    )}
                  </tr>
                  {isAdmin && editing === d.id && (
                    <tr>
                      <td colSpan={columns.length}>
                        <DeploymentForm key={d.id} existing={d} onDone={() => setEditing(null)} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </ListTable>
            <Pager pagination={list.data.pagination} onPage={setPage} label="Deployment pages" />
          </>
        ))}
    </>
  );
}

/** Each variable with its value or the name of the secret it is bound to; secrets mounted as files. */
export function Variables({ deployment }: { deployment: Deployment }) {
  const entries = Object.entries(deployment.env);
  if (entries.length === 0 && deployment.secret_refs.length === 0) return <span className="muted">none</span>;
  return (
    <dl className="variables" aria-label={`Variables of ${deployment.name}`}>
      {entries.map(([name, v]) => (
        <Fragment key={name}>
          <dt>
            <code>{name}</code>
          </dt>
          <dd>
            {isBinding(v) ? (
              <span>
                secret <code>{v.secret}</code>
              </span>
            ) : (
              <code>{v}</code>
            )}
          </dd>
        </Fragment>
      ))}
      {deployment.secret_refs.length > 0 && (
        <>
          <dt>files</dt>
          <dd>
            {deployment.secret_refs.map((s) => (
              <code key={s}>{s} </code>
            ))}
          </dd>
        </>
      )}
    </dl>
  );
}

function DeploymentForm({ existing, onDone }: { existing?: Deployment; onDone?: () => void }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const initial = new URLSearchParams(useSearch()).get('template') ?? '';
  const [slug, setSlug] = useState(existing?.template_slug ?? initial);
  const [name, setName] = useState(existing?.name ?? '');
  const [env, setEnv] = useState<Record<string, EnvValue>>(existing?.env ?? {});
  const [secretRefs, setSecretRefs] = useState<string[]>(existing?.secret_refs ?? []);
  // Host ports by "80/tcp"; a port left empty is assigned by the engine (shown on the deployment's page).
  const [hostPorts, setHostPorts] = useState<Record<string, string>>(
    Object.fromEntries(
      (existing?.host_ports ?? []).map((p) => [`${p.container_port}/${p.protocol}`, String(p.host_port)]),
    ),
  );
  const template = useQuery({
    queryKey: ['template', slug],
    queryFn: () => hub.template(slug),
    enabled: slug !== '',
    retry: false,
  });
  const secrets = useQuery({ queryKey: ['secrets'], queryFn: core.secrets });
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name,
        template_slug: slug,
        env: Object.fromEntries(Object.entries(env).filter(([, v]) => (isBinding(v) ? v.secret !== '' : v !== ''))),
        secret_refs: secretRefs,
        host_ports: Object.entries(hostPorts)
          .filter(([, v]) => v.trim() !== '')
          .map(([key, v]) => {
            const [port, protocol] = key.split('/');
            return { container_port: Number(port), protocol: protocol as HostPort['protocol'], host_port: Number(v) };
          }),
      };
      return existing ? hub.updateDeployment(existing.id, body) : hub.createDeployment(body);
    },
    onSuccess: async (saved) => {
      onDone?.();
      await qc.invalidateQueries({ queryKey: ['deployments'] });
      // A new deployment: its own page, with a confirmation nobody misses.
      if (!existing) navigate(`/deployments/${encodeURIComponent(saved.id)}?created=1`);
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }
  const secretNames = secrets.data?.secrets.map((s) => s.name) ?? [];
  const filesHint = useId();
  const title = existing ? `Edit deployment ${existing.name}` : 'New deployment';
  return (
    <form onSubmit={submit} className="panel stack deploy-form" aria-label={title}>
      <h2>{title}</h2>
      <TemplatePicker slug={slug} current={template.data} onPick={setSlug} />
      {template.error && slug !== '' && (
        <p className="notice error">No template “{slug}” in this instance’s catalog.</p>
      )}
      <Field label="Deployment name" hint="Lower-case letters, digits and -.">
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            required
            pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?"
            maxLength={63}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      {template.data && <EnvFields template={template.data} env={env} secretNames={secretNames} onChange={setEnv} />}
      {template.data?.ports && template.data.ports.length > 0 && (
        <fieldset>
          <legend>Host ports</legend>
          <p className="hint">Leave empty to let the engine pick a free one.</p>
          {template.data.ports.map((p) => {
            const key = `${p.containerPort}/${p.protocol.toLowerCase()}`;
            return (
              <Field key={key} label={`Host port for ${key}`}>
                {(id) => (
                  <input
                    id={id}
                    type="number"
                    min={1}
                    max={65535}
                    inputMode="numeric"
                    value={hostPorts[key] ?? ''}
                    onChange={(e) => setHostPorts({ ...hostPorts, [key]: e.target.value })}
                  />
                )}
              </Field>
            );
          })}
        </fieldset>
      )}
      {secretNames.length > 0 && (
        <fieldset>
          <legend>Secrets mounted as files</legend>
          <p className="hint" id={filesHint}>
            Each secret checked here is also written into the container as a read-only file,{' '}
            <code>/run/secrets/&lt;name&gt;</code>, for programs that read a password from a file (such as{' '}
            <code>POSTGRES_PASSWORD_FILE</code>) rather than from a variable.
          </p>
          {secretNames.map((s) => (
            <label key={s} className="actions">
              <input
                type="checkbox"
                aria-describedby={filesHint}
                checked={secretRefs.includes(s)}
                onChange={(e) =>
                  setSecretRefs(e.target.checked ? [...secretRefs, s] : secretRefs.filter((n) => n !== s))
                }
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
      )}
      <ErrorNotice error={save.error} />
      <div className="submit">
        <button type="submit" className="primary" disabled={save.isPending}>
          {existing ? 'Save changes' : 'Create deployment'}
        </button>
      </div>
    </form>
  );
}

/**
 * The template, picked from the synced catalog: a search (name, slug, description; Core's catalog search) narrowing
 * a list of templates. The chosen one stays listed whatever the search.
 */
function TemplatePicker({
  slug,
  current,
  onPick,
}: {
  slug: string;
  current: Template | undefined;
  onPick: (slug: string) => void;
}) {
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search.trim());
  const found = useQuery({
    queryKey: ['template-picker', deferred],
    queryFn: () => hub.templates({ search: deferred || undefined, limit: 100 }),
  });
  const listed = found.data?.templates ?? [];
  const options = current && !listed.some((t) => t.slug === current.slug) ? [current, ...listed] : listed;
  const searchId = useId();
  return (
    <div className="template-picker">
      <div className="field">
        <label htmlFor={searchId}>Find a template</label>
        <input
          id={searchId}
          type="search"
          placeholder="Name or slug, e.g. postgres"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
      </div>
      <Field
        label="Template"
        hint={
          found.data
            ? `${found.data.pagination.total} in the synced catalog${deferred ? ` match “${deferred}”` : ''}.`
            : undefined
        }
      >
        {(id, hint) => (
          <select id={id} aria-describedby={hint} required value={slug} onChange={(e) => onPick(e.target.value)}>
            <option value="">{found.isPending ? 'Loading the catalog…' : 'Choose a template'}</option>
            {slug !== '' && !options.some((t) => t.slug === slug) && <option value={slug}>{slug}</option>}
            {options.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name} ({t.slug})
              </option>
            ))}
          </select>
        )}
      </Field>
      <ErrorNotice error={found.error} />
    </div>
  );
}

/** Per variable: a value field or a secret picker. Credential-named variables offer only the picker. */
function EnvFields({
  template,
  env,
  secretNames,
  onChange,
}: {
  template: Template;
  env: Record<string, EnvValue>;
  secretNames: string[];
  onChange: (env: Record<string, EnvValue>) => void;
}) {
  if (template.env_schema.length === 0)
    return <p className="muted">{template.name} declares no environment variables.</p>;
  return (
    <fieldset className="env-fields">
      <legend>Environment of {template.name}</legend>
      {template.env_schema.map((e) => {
        const current = env[e.name];
        const credential = isCredentialName(e.name);
        const bound = credential || isBinding(current);
        const required = e.required && !e.default_value;
        const hint =
          [e.description, e.default_value && `default ${e.default_value}`, credential && 'a credential: bind a secret']
            .filter(Boolean)
            .join(' · ') || undefined;
        return (
          <Field key={e.name} label={`${e.name}${e.required ? ' (required)' : ''}`} hint={hint}>
            {(id, hintId) => (
              <span className="actions">
                {!credential && (
                  <select
                    aria-label={`${e.name}: value or secret`}
                    value={bound ? 'secret' : 'value'}
                    onChange={(ev) =>
                      onChange({ ...env, [e.name]: ev.target.value === 'secret' ? { secret: '' } : '' })
                    }
                  >
                    <option value="value">Value</option>
                    <option value="secret">Secret</option>
                  </select>
                )}
                {bound ? (
                  <select
                    id={id}
                    aria-describedby={hintId}
                    required={required}
                    value={isBinding(current) ? current.secret : ''}
                    onChange={(ev) => onChange({ ...env, [e.name]: { secret: ev.target.value } })}
                  >
                    <option value="">
                      {secretNames.length ? 'choose a secret' : 'no secrets yet: create one on the Secrets page'}
                    </option>
                    {secretNames.map((s) => (
                      <option key={s} value={s}>
                        {s}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={id}
                    aria-describedby={hintId}
                    required={required}
                    value={typeof current === 'string' ? current : ''}
                    onChange={(ev) => onChange({ ...env, [e.name]: ev.target.value })}
                  />
                )}
              </span>
            )}
          </Field>
        );
      })}
    </fieldset>
  );
}
