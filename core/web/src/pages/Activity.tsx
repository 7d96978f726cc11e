/**
 * The activity log: every write by anyone (people, the temporary admin, machine tokens; REST, MCP, CLI),
 * newest first, with what changed. Filters live in the URL (?actor=&target_type=&action=&page=), so a
 * filtered view can be linked and survives a reload.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { core } from '../api';
import { ErrorNotice, Field, formatDate, ListTable, PageHeading, Pager } from '../components';
import type { ActivityEntry } from '../types';

export const TARGET_TYPES = ['user', 'machine_token', 'secret', 'settings', 'hub', 'catalog', 'deployment'] as const;
const TARGET_LABEL: Record<string, string> = {
  user: 'Users',
  machine_token: 'Machine tokens',
  secret: 'Secrets',
  settings: 'Settings',
  hub: 'Hub connection',
  catalog: 'Catalog',
  deployment: 'Deployments',
};
const VIA: Record<string, string> = {
  api: '',
  mcp: ' via MCP',
  hub_mcp: ' via the Hub’s MCP',
  cli: ' at the command line',
};

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** before → after, one line per changed field. */
export function Change({ entry }: { entry: ActivityEntry }) {
  const keys = [...new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])];
  if (keys.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="change">
      {keys.map((k) => (
        <li key={k}>
          <span className="field-name">{k}</span>:{' '}
          {entry.before && entry.after ? (
            <>
              <del>{show(entry.before[k])}</del> → <ins>{show(entry.after[k])}</ins>
            </>
          ) : (
            <span>{show((entry.after ?? entry.before)![k])}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

export const actionText = (e: ActivityEntry) => e.action.replace('.', ' ').replace(/_/g, ' ');

export function Activity() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const filter = {
    actor: params.get('actor') ?? '',
    target_type: params.get('target_type') ?? '',
    action: params.get('action') ?? '',
    target_id: params.get('target_id') ?? '',
  };
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [actor, setActor] = useState(filter.actor);
  const [targetType, setTargetType] = useState(filter.target_type);

  const go = (next: Partial<typeof filter> & { page?: number }) => {
    const merged = {
      ...filter,
      page: String(next.page ?? 1),
      ...Object.fromEntries(Object.entries(next).map(([k, v]) => [k, String(v)])),
    };
    const q = new URLSearchParams(Object.entries(merged).filter(([k, v]) => v !== '' && !(k === 'page' && v === '1')));
    navigate(`/activity${q.size ? `?${q}` : ''}`);
  };
  const list = useQuery({
    queryKey: ['activity', filter, page],
    queryFn: () =>
      core.activity({
        page,
        limit: 50,
        ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== '')),
      }),
    placeholderData: keepPreviousData,
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    go({ actor: actor.trim(), target_type: targetType, page: 1 });
  }
  const filtered = Object.values(filter).some((v) => v !== '');
  return (
    <>
      <PageHeading>Activity</PageHeading>
      <p className="muted">
        Every change made on this Core instance — by people, the temporary admin and machine tokens, through the API,
        MCP or the command line — with what it changed. Secret values are never shown (only that a value was set or
        changed).
      </p>
      <form className="panel filters" onSubmit={submit} aria-label="Filter the activity">
        <Field label="Who" hint="An email, a username, token:<name>, or an id">
          {(id, hint) => (
            <input id={id} aria-describedby={hint} value={actor} onChange={(e) => setActor(e.target.value)} />
          )}
        </Field>
        <Field label="What">
          {(id) => (
            <select id={id} value={targetType} onChange={(e) => setTargetType(e.target.value)}>
              <option value="">Everything</option>
              {TARGET_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TARGET_LABEL[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="submit">
          <button type="submit" className="primary">
            Filter
          </button>
          {filtered && (
            <button
              type="button"
              onClick={() => {
                setActor('');
                setTargetType('');
                navigate('/activity');
              }}
            >
              Clear filters
            </button>
          )}
        </div>
      </form>
      <ErrorNotice error={list.error} />
      {list.data &&
        (list.data.entries.length === 0 ? (
          <p>{filtered ? 'Nothing matches these filters.' : 'Nothing has been changed yet.'}</p>
        ) : (
          <>
            <p className="muted" role="status">
              {list.data.pagination.total} {list.data.pagination.total === 1 ? 'change' : 'changes'}
            </p>
            <ActivityTable entries={list.data.entries} caption="Changes, newest first" />
            <Pager pagination={list.data.pagination} onPage={(p) => go({ page: p })} label="Activity pages" />
          </>
        ))}
    </>
  );
}

export function ActivityTable({ entries, caption }: { entries: ActivityEntry[]; caption: string }) {
  return (
    <ListTable caption={caption} columns={['When', 'Who', 'What', 'Target', 'Change']}>
      {entries.map((e) => (
        <tr key={e.id}>
          <td data-label="When">{formatDate(e.at)}</td>
          <td data-label="Who">
            <Link href={`/activity?actor=${encodeURIComponent(e.actor.id)}`}>{e.actor.label}</Link>
            <span className="muted">{VIA[e.via] ?? ` via ${e.via}`}</span>
          </td>
          <td data-label="What">{actionText(e)}</td>
          <td data-label="Target">
            <Link href={`/activity?target_type=${e.target.type}&target_id=${encodeURIComponent(e.target.id)}`}>
              {e.target.name}
            </Link>
          </td>
          <td data-label="Change">
            <Change entry={e} />
          </td>
        </tr>
      ))}
    </ListTable>
  );
}
