import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearch } from 'wouter';
import { core } from '../api';
import { ConfirmButton, ErrorNotice, Field, formatDate, ListTable, PageHeading, Pager, useMe } from '../components';
import { hub, type Template } from '../hub';

/** Deployments: desired state recorded by Core (it does not run containers). */
export function Deployments() {
  const { isAdmin } = useMe();
  const [page, setPage] = useState(1);
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['deployments', page], queryFn: () => hub.deployments({ page }) });
  const remove = useMutation({ mutationFn: hub.deleteDeployment, onSuccess: () => qc.invalidateQueries({ queryKey: ['deployments'] }) });
  return (
    <>
      <PageHeading>Deployments</PageHeading>
      <p className="muted">Core records the desired state of each deployment; running the containers is out of its scope.</p>
      {isAdmin && <DeploymentForm />}
      <ErrorNotice error={list.error ?? remove.error} />
      {list.data &&
        (list.data.deployments.length === 0 ? (
          <p>No deployments yet.</p>
        ) : (
          <>
            <ListTable caption="Deployments" columns={['Name', 'Template', 'Status', 'Created', ...(isAdmin ? [''] : [])]}>
              {list.data.deployments.map((d) => (
                <tr key={d.id}>
                  <th scope="row" data-label="Name">
                    {d.name}
                  </th>
                  <td data-label="Template">
                    <code>{d.template_slug}</code> {d.template_version}
                  </td>
                  <td data-label="Status">{d.status === 'ok' ? 'ok' : 'template missing from the catalog'}</td>
                  <td data-label="Created">
                    {formatDate(d.created_at)} by {d.created_by}
                  </td>
                  {isAdmin && (
                    <td>
                      <ConfirmButton label="Delete" subject={d.name} onConfirm={() => remove.mutate(d.id)} busy={remove.isPending} />
                    </td>
                  )}
                </tr>
              ))}
            </ListTable>
            <Pager pagination={list.data.pagination} onPage={setPage} label="Deployment pages" />
          </>
        ))}
    </>
  );
}

function DeploymentForm() {
  const qc = useQueryClient();
  const initial = new URLSearchParams(useSearch()).get('template') ?? '';
  const [slug, setSlug] = useState(initial);
  const [name, setName] = useState('');
  const [env, setEnv] = useState<Record<string, string>>({});
  const [secretRefs, setSecretRefs] = useState<string[]>([]);
  const template = useQuery({ queryKey: ['template', slug], queryFn: () => hub.template(slug), enabled: slug !== '', retry: false });
  const secrets = useQuery({ queryKey: ['secrets'], queryFn: core.secrets });
  const create = useMutation({
    mutationFn: () => hub.createDeployment({ name, template_slug: slug, env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')), secret_refs: secretRefs }),
    onSuccess: () => {
      setName('');
      setEnv({});
      setSecretRefs([]);
      return qc.invalidateQueries({ queryKey: ['deployments'] });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }
  return (
    <form onSubmit={submit} className="panel grid" aria-label="New deployment">
      <h2>New deployment</h2>
      <Field label="Template" hint="The slug of a catalog template (Deploy on the catalog page fills it in).">
        {(id, hint) => <input id={id} aria-describedby={hint} required value={slug} onChange={(e) => setSlug(e.target.value.trim())} />}
      </Field>
      {template.error && slug !== '' && <p className="notice error">No template “{slug}” in this instance’s catalog.</p>}
      <Field label="Deployment name" hint="Lower-case letters, digits and -.">
        {(id, hint) => <input id={id} aria-describedby={hint} required pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      {template.data && <EnvFields template={template.data} env={env} onChange={setEnv} />}
      {secrets.data && secrets.data.secrets.length > 0 && (
        <fieldset>
          <legend>Secrets it uses</legend>
          {secrets.data.secrets.map((s) => (
            <label key={s.name} className="actions">
              <input
                type="checkbox"
                checked={secretRefs.includes(s.name)}
                onChange={(e) => setSecretRefs(e.target.checked ? [...secretRefs, s.name] : secretRefs.filter((n) => n !== s.name))}
              />{' '}
              {s.name}
            </label>
          ))}
        </fieldset>
      )}
      <ErrorNotice error={create.error} />
      {create.data && <p role="status">Deployment {create.data.name} recorded.</p>}
      <div className="submit">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create deployment
        </button>
      </div>
    </form>
  );
}

function EnvFields({ template, env, onChange }: { template: Template; env: Record<string, string>; onChange: (env: Record<string, string>) => void }) {
  if (template.env_schema.length === 0) return <p className="muted">{template.name} declares no environment variables.</p>;
  return (
    <fieldset>
      <legend>Environment of {template.name}</legend>
      {template.env_schema.map((e) => (
        <Field key={e.name} label={`${e.name}${e.required ? ' (required)' : ''}`} hint={[e.description, e.default_value && `default ${e.default_value}`].filter(Boolean).join(' · ') || undefined}>
          {(id, hint) => (
            <input id={id} aria-describedby={hint} required={e.required && !e.default_value} value={env[e.name] ?? ''} onChange={(ev) => onChange({ ...env, [e.name]: ev.target.value })} />
          )}
        </Field>
      ))}
    </fieldset>
  );
}
