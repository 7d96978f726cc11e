import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { core } from '../api';
import { ConfirmButton, ErrorNotice, Field, formatDate, ListTable, PageHeading, useMe } from '../components';
import type { Secret } from '../types';

export function Secrets() {
  const { isAdmin } = useMe();
  const list = useQuery({ queryKey: ['secrets'], queryFn: core.secrets });
  return (
    <>
      <PageHeading>Secrets</PageHeading>
      {!isAdmin && <p className="muted">Secret values are shown to admins only.</p>}
      {isAdmin && <SecretForm />}
      <ErrorNotice error={list.error} />
      {list.data &&
        (list.data.secrets.length === 0 ? (
          <p>No secrets yet.</p>
        ) : (
          <ListTable caption="Secrets" columns={['Name', 'Description', 'Updated', ...(isAdmin ? ['Value'] : [])]}>
            {list.data.secrets.map((s) => (
              <SecretRow key={s.name} secret={s} isAdmin={isAdmin} />
            ))}
          </ListTable>
        ))}
    </>
  );
}

function SecretRow({ secret, isAdmin }: { secret: Secret; isAdmin: boolean }) {
  const qc = useQueryClient();
  // The value lives in this row's state only: never in the shared query cache.
  const [value, setValue] = useState<string | null>(null);
  const reveal = useMutation({ mutationFn: () => core.secretValue(secret.name), onSuccess: (s) => setValue(s.value) });
  const remove = useMutation({
    mutationFn: () => core.deleteSecret(secret.name),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['secrets'] }),
  });
  return (
    <tr>
      <th scope="row" data-label="Name">
        <code>{secret.name}</code>
      </th>
      <td data-label="Description">{secret.description || '—'}</td>
      <td data-label="Updated">{formatDate(secret.updated_at)}</td>
      {isAdmin && (
        <td data-label="Value">
          <div className="actions">
            {value === null ? (
              <button
                type="button"
                aria-label={`Reveal ${secret.name}`}
                onClick={() => reveal.mutate()}
                disabled={reveal.isPending}
              >
                Reveal
              </button>
            ) : (
              <>
                <code className="secret-value">{value}</code>
                <button type="button" aria-label={`Hide ${secret.name}`} onClick={() => setValue(null)}>
                  Hide
                </button>
              </>
            )}
            <ConfirmButton
              label="Delete"
              subject={secret.name}
              onConfirm={() => remove.mutate()}
              busy={remove.isPending}
            />
          </div>
          <ErrorNotice error={reveal.error ?? remove.error} />
        </td>
      )}
    </tr>
  );
}

function SecretForm() {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  const save = useMutation({
    mutationFn: () => core.putSecret(name, { value, ...(description ? { description } : {}) }),
    onSuccess: () => {
      setName('');
      setValue('');
      setDescription('');
      return qc.invalidateQueries({ queryKey: ['secrets'] });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }
  return (
    <form onSubmit={submit} className="panel grid" aria-label="Set a secret">
      <h2>Set a secret</h2>
      <Field label="Secret name" hint="Letters, digits, _ . - (up to 128). An existing name is overwritten.">
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            required
            pattern="[A-Za-z0-9_.\-]{1,128}"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field label="Value">
        {(id) => (
          <input
            id={id}
            type="password"
            autoComplete="off"
            required
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        )}
      </Field>
      <Field label="Description">
        {(id) => <input id={id} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <ErrorNotice error={save.error} />
      <div className="submit">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save secret
        </button>
      </div>
    </form>
  );
}
