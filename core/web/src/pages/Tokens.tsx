import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, useState, type FormEvent } from 'react';
import { core } from '../api';
import {
  ConfirmButton,
  ErrorNotice,
  Field,
  formatDate,
  ListTable,
  PageHeading,
  Pager,
  RoleSelect,
  useMe,
} from '../components';
import type { MachineToken, Role } from '../types';

type Issued = MachineToken & { token: string };

export function Tokens() {
  const { isAdmin } = useMe();
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  // The secret of a token just created or re-issued: shown here once, never fetched again.
  const [issued, setIssued] = useState<Issued | null>(null);
  const [auditOf, setAuditOf] = useState<MachineToken | null>(null);
  const list = useQuery({
    queryKey: ['tokens', page],
    queryFn: () => core.tokens({ page }),
    placeholderData: keepPreviousData,
  });
  const onIssued = (t: Issued) => {
    setIssued(t);
    return qc.invalidateQueries({ queryKey: ['tokens'] });
  };
  return (
    <>
      <PageHeading>Machine tokens</PageHeading>
      <p className="muted">
        Automation authenticates with <code>Authorization: Bearer svm_…</code>. Every request made with a token is
        recorded in its audit log.
      </p>
      {issued && <IssuedToken token={issued} onDone={() => setIssued(null)} />}
      {isAdmin && <TokenForm onIssued={onIssued} />}
      <ErrorNotice error={list.error} />
      {list.data &&
        (list.data.tokens.length === 0 ? (
          <p>No machine tokens yet.</p>
        ) : (
          <>
            <ListTable
              caption="Machine tokens"
              columns={['Name', 'Role', 'Token', 'Status', 'Created', 'Expires', 'Last used', 'Actions']}
            >
              {list.data.tokens.map((t) => (
                <Fragment key={t.id}>
                  <TokenRow
                    token={t}
                    isAdmin={isAdmin}
                    onIssued={onIssued}
                    onAudit={() => setAuditOf(auditOf?.id === t.id ? null : t)}
                    auditOpen={auditOf?.id === t.id}
                  />
                  {/* The audit log opens right below its token, not at the bottom of the page. */}
                  {auditOf?.id === t.id && (
                    <tr className="audit-row">
                      <td colSpan={8}>
                        <AuditLog key={auditOf.id} token={auditOf} onClose={() => setAuditOf(null)} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </ListTable>
            <Pager pagination={list.data.pagination} onPage={setPage} label="Machine token pages" />
          </>
        ))}
    </>
  );
}

function TokenRow(props: {
  token: MachineToken;
  isAdmin: boolean;
  onIssued: (t: Issued) => void;
  onAudit: () => void;
  auditOpen: boolean;
}) {
  const { token: t, isAdmin } = props;
  const qc = useQueryClient();
  const reissue = useMutation({ mutationFn: () => core.reissueToken(t.id), onSuccess: props.onIssued });
  const revoke = useMutation({
    mutationFn: () => core.revokeToken(t.id),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['tokens'] }),
  });
  return (
    <tr>
      <th scope="row" data-label="Name">
        {t.name}
      </th>
      <td data-label="Role">{t.role}</td>
      <td data-label="Token">
        <code>{t.prefix}…</code>
      </td>
      <td data-label="Status">
        <span className={`status status-${t.status}`}>{t.status}</span>
      </td>
      <td data-label="Created">
        {formatDate(t.created_at)}
        {t.created_by && <span className="muted"> by {t.created_by}</span>}
      </td>
      <td data-label="Expires">{formatDate(t.expires_at, 'never')}</td>
      <td data-label="Last used">{formatDate(t.last_used_at, 'never')}</td>
      <td data-label="Actions">
        <div className="actions">
          <button
            type="button"
            aria-label={`Audit log of ${t.name}`}
            aria-expanded={props.auditOpen}
            onClick={props.onAudit}
          >
            Audit log
          </button>
          {isAdmin && t.status === 'active' && (
            <>
              <ConfirmButton
                label="Re-issue"
                subject={t.name}
                onConfirm={() => reissue.mutate()}
                busy={reissue.isPending}
              />
              <ConfirmButton
                label="Revoke"
                subject={t.name}
                onConfirm={() => revoke.mutate()}
                busy={revoke.isPending}
              />
            </>
          )}
        </div>
        <ErrorNotice error={reissue.error ?? revoke.error} />
      </td>
    </tr>
  );
}

function TokenForm({ onIssued }: { onIssued: (t: Issued) => void }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('readonly');
  const [days, setDays] = useState('');
  const create = useMutation({
    mutationFn: () => core.createToken({ name, role, expires_in_days: days === '' ? null : Number(days) }),
    onSuccess: (t) => {
      setName('');
      setDays('');
      onIssued(t);
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }
  return (
    <form onSubmit={submit} className="panel grid" aria-label="Create a machine token">
      <h2>Create a machine token</h2>
      <Field label="Token name">
        {(id) => <input id={id} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Token role">{(id) => <RoleSelect id={id} value={role} onChange={setRole} />}</Field>
      <Field label="Expires in days" hint="1 to 365; leave empty for a token that does not expire.">
        {(id, hint) => (
          <input
            id={id}
            type="number"
            inputMode="numeric"
            min={1}
            max={365}
            step={1}
            aria-describedby={hint}
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
        )}
      </Field>
      <ErrorNotice error={create.error} />
      <div className="submit">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create token
        </button>
      </div>
    </form>
  );
}

function IssuedToken({ token, onDone }: { token: Issued; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [token.token]);
  async function copy() {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <section className="panel issued" aria-labelledby="issued-heading">
      <h2 id="issued-heading" ref={heading} tabIndex={-1}>
        Token “{token.name}” ({token.role})
      </h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> Core keeps only a hash of it.
      </p>
      <div className="copy">
        <input
          aria-label="New machine token"
          readOnly
          value={token.token}
          onFocus={(e) => e.target.select()}
          spellCheck={false}
        />
        <button type="button" className="primary" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" className="muted">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the token and copy it by hand.'
            : ''}
      </p>
      <button type="button" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}

function AuditLog({ token, onClose }: { token: MachineToken; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const audit = useQuery({
    queryKey: ['audit', token.id, page],
    queryFn: () => core.tokenAudit(token.id, { page }),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="panel" aria-labelledby="audit-heading">
      <div className="row">
        <h2 id="audit-heading" ref={heading} tabIndex={-1}>
          Audit log of “{token.name}”
        </h2>
        <div className="actions">
          <button type="button" onClick={() => audit.refetch()} disabled={audit.isFetching}>
            Refresh
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <ErrorNotice error={audit.error} />
      {audit.data &&
        (audit.data.records.length === 0 ? (
          <p>No requests made with this token yet.</p>
        ) : (
          <>
            <ListTable
              caption={`Requests made with ${token.name}, newest first`}
              columns={['When', 'Method', 'Path', 'Status']}
            >
              {audit.data.records.map((r) => (
                <tr key={r.id}>
                  <td data-label="When">{formatDate(r.at)}</td>
                  <td data-label="Method">{r.method}</td>
                  <td data-label="Path">
                    <code>{r.path}</code>
                  </td>
                  <td data-label="Status">
                    <span className={r.status < 400 ? 'status status-active' : 'status status-revoked'}>
                      {r.status}
                    </span>
                  </td>
                </tr>
              ))}
            </ListTable>
            <Pager pagination={audit.data.pagination} onPage={setPage} label="Audit log pages" />
          </>
        ))}
    </section>
  );
}
