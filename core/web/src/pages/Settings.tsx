import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { core } from '../api';
import { redirectUri } from '../oidc';
import { ConfirmButton, ErrorNotice, Field, PageHeading, RoleSelect, useMe } from '../components';
import type { OidcSettings } from '../types';

const SOURCE: Record<OidcSettings['source'], string> = {
  environment: 'Configured by the environment (CORE_OIDC_* variables).',
  settings: 'Configured in these settings.',
  none: 'Single sign-on is off.',
};

export function SettingsPage() {
  const { isAdmin } = useMe();
  const settings = useQuery({ queryKey: ['settings'], queryFn: core.settings });
  const s = settings.data;
  return (
    <>
      <PageHeading>Settings</PageHeading>
      <ErrorNotice error={settings.error} />
      {s && (
        <>
          <section className="panel" aria-labelledby="oidc-heading">
            <h2 id="oidc-heading">Single sign-on (OpenID Connect)</h2>
            <p>{SOURCE[s.oidc.source]}</p>
            {s.oidc.source !== 'none' && (
              <dl className="facts">
                <dt>Issuer</dt>
                <dd>{s.oidc.issuer}</dd>
                <dt>Client ID</dt>
                <dd>{s.oidc.client_id}</dd>
                <dt>Audience</dt>
                <dd>{s.oidc.audience ?? '— (the client ID)'}</dd>
                <dt>Scopes</dt>
                <dd>{s.oidc.scopes}</dd>
                <dt>Role of new users</dt>
                <dd>{s.oidc.default_role}</dd>
                <dt>Admin groups</dt>
                <dd>{s.oidc.admin_groups.length ? s.oidc.admin_groups.join(', ') : '—'}</dd>
                <dt>Access tokens accepted</dt>
                <dd>{s.oidc.token_policy_description}</dd>
                <dt>Token introspection client</dt>
                <dd>{s.oidc.introspection_client_id ?? '— (CORE_OIDC_INTROSPECTION_CLIENT_ID)'}</dd>
                <dt>Userinfo-checked tokens (CORE_OIDC_ACCEPT_USERINFO_TOKENS)</dt>
                <dd>
                  {s.oidc.accept_userinfo_tokens
                    ? 'accepted: any token this provider issued to any application for a person signs them in to Core'
                    : 'refused (the default)'}
                </dd>
              </dl>
            )}
            {isAdmin && s.oidc.source === 'environment' && (
              <p className="muted">Change the CORE_OIDC_* variables and restart Core to change it.</p>
            )}
            {isAdmin && s.oidc.source !== 'environment' && <OidcForm current={s.oidc} />}
          </section>
          <section className="panel" aria-labelledby="temp-heading">
            <h2 id="temp-heading">Temporary admin</h2>
            <p>
              {s.temporary_admin.enabled
                ? 'Enabled by SVC_TEMP_ADMIN_USERNAME and SVC_TEMP_ADMIN_PASSWORD. Remove both variables and restart Core once permanent admin accounts exist.'
                : 'Not enabled.'}
            </p>
          </section>
          <p className="muted">Core version {s.version}</p>
        </>
      )}
    </>
  );
}

function OidcForm({ current }: { current: OidcSettings }) {
  const qc = useQueryClient();
  const [form, setForm] = useState({
    issuer: current.issuer ?? '',
    client_id: current.client_id ?? '',
    audience: current.audience ?? '',
    scopes: current.scopes ?? 'openid email profile offline_access',
    default_role: current.default_role,
  });
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['settings'] }),
      qc.invalidateQueries({ queryKey: ['auth-config'] }),
    ]);
  const save = useMutation({
    mutationFn: () =>
      core.putOidcSettings({
        issuer: form.issuer,
        client_id: form.client_id,
        ...(form.audience ? { audience: form.audience } : {}),
        scopes: form.scopes,
        default_role: form.default_role,
      }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: core.deleteOidcSettings, onSuccess: refresh });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  return (
    <form onSubmit={submit} className="stack narrow" aria-label="Single sign-on settings">
      <p className="muted">
        Register Core with the provider as a public client (authorization code with PKCE, no secret) with the redirect
        URI <code>{redirectUri()}</code>.
      </p>
      <Field label="Issuer URL">
        {(id) => <input id={id} type="url" required value={form.issuer} onChange={set('issuer')} />}
      </Field>
      <Field label="Client ID">
        {(id) => <input id={id} required value={form.client_id} onChange={set('client_id')} />}
      </Field>
      <Field
        label="Audience"
        hint="Optional: the API identifier access tokens must carry (sent to the provider as resource). Empty: the client ID."
      >
        {(id, hint) => <input id={id} aria-describedby={hint} value={form.audience} onChange={set('audience')} />}
      </Field>
      <Field label="Scopes">{(id) => <input id={id} value={form.scopes} onChange={set('scopes')} />}</Field>
      <Field label="Role of new users">
        {(id) => (
          <RoleSelect
            id={id}
            value={form.default_role}
            onChange={(default_role) => setForm({ ...form, default_role })}
          />
        )}
      </Field>
      <ErrorNotice error={save.error ?? remove.error} />
      {save.isSuccess && (
        <p role="status" className="notice">
          Saved.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save single sign-on
        </button>
        {current.source === 'settings' && (
          <ConfirmButton
            label="Remove"
            subject="single sign-on"
            onConfirm={() => remove.mutate()}
            busy={remove.isPending}
          />
        )}
      </div>
    </form>
  );
}
