/**
 * One deployment (issue 33): what an admin asked for (desired) beside what the engine reports (observed), its
 * published ports, the actions (admins), its events (the activity log's entries for it) and live logs (admins
 * only: a process can print its secrets, so readonly callers never ask for them). The page polls every few seconds.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { core } from '../api';
import { ago, megabytes, portUrl, pullPercent, StateBadge, stateReason, useNow } from '../deploymentStatus';
import { ErrorNotice, errorMessage, formatDate, ListTable, PageHeading, useMe } from '../components';
import { ApiError } from '../http';
import { hub, type Deployment, type DeploymentOperation } from '../hub';
import { streamLogs } from '../logStream';
import { actionText, Change } from './Activity';
import { Variables } from './Deployments';

/** How often the page asks for the deployment's state (the reconciler acts within seconds). */
const POLL_MS = 3_000;

export function DeploymentPage({ params }: { params: { id: string } }) {
  const id = decodeURIComponent(params.id);
  const { isAdmin } = useMe();
  const d = useQuery({
    queryKey: ['deployment', id],
    queryFn: () => hub.deployment(id),
    refetchInterval: (q) => (q.state.error instanceof ApiError && q.state.error.status === 404 ? false : POLL_MS),
    retry: (n, err) => !(err instanceof ApiError && err.status === 404) && n < 2,
  });
  // Deleted elsewhere while open: "not found", not a stale page with a refresh error.
  const gone = d.error instanceof ApiError && d.error.status === 404;
  // Arrived from the deploy form (?created=1): say so plainly, above everything else.
  const created = new URLSearchParams(useSearch()).has('created');
  if (!d.data || gone) {
    return d.error ? (
      <>
        <PageHeading>Deployment not found</PageHeading>
        <ErrorNotice error={d.error} />
        <p>
          <Link href="/deployments">Back to the deployments</Link>
        </p>
      </>
    ) : (
      <p role="status">Loading…</p>
    );
  }
  const dep = d.data;
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/deployments">Deployments</Link>
      </nav>
      <div className="row heading-row">
        <PageHeading>{dep.name}</PageHeading>
        <StateBadge deployment={dep} />
      </div>
      {created && (
        <p role="status" className="notice success">
          <strong>Deployment {dep.name} created.</strong> Core starts it on its container engine; its state below
          follows as the engine reports.
        </p>
      )}
      {/* A failed poll keeps the last known state on screen and says why it may be stale. */}
      {d.error && (
        <p role="alert" className="notice error">
          Could not refresh this deployment: {errorMessage(d.error)}
        </p>
      )}
      <Status deployment={dep} isAdmin={isAdmin} />
      <div className="overview-grid">
        <Ports deployment={dep} />
        <section className="panel" aria-labelledby="vars-heading">
          <h2 id="vars-heading">Variables</h2>
          <Variables deployment={dep} />
        </section>
      </div>
      <Events deployment={dep} />
      {isAdmin ? (
        <Logs deployment={dep} />
      ) : (
        <section className="panel" aria-labelledby="logs-heading">
          <h2 id="logs-heading">Logs</h2>
          <p className="muted">
            Logs are shown to admins only: a process can print its secrets (a password in an error message, say).
          </p>
        </section>
      )}
    </>
  );
}

function Status({ deployment: dep, isAdmin }: { deployment: Deployment; isAdmin: boolean }) {
  const o = dep.observed;
  const percent = pullPercent(o);
  const now = useNow(10_000);
  // The catalog's current version, to name what an update would deploy.
  const current = useQuery({
    queryKey: ['template', dep.template_slug],
    queryFn: () => hub.template(dep.template_slug),
    enabled: o.update_available,
    retry: false,
  });
  const update = o.update_available ? (current.data?.version ?? 'a newer version') : null;
  return (
    <section className="panel" aria-labelledby="status-heading">
      <h2 id="status-heading">Status</h2>
      <dl className="facts">
        <dt>Observed</dt>
        <dd>
          <StateBadge deployment={dep} /> <span className="reason">{stateReason(dep)}</span>
        </dd>
        {o.state === 'pulling' && (
          <>
            <dt>Pull</dt>
            <dd>
              <progress
                className="pull"
                max={100}
                value={percent ?? undefined}
                aria-label={`Pulling ${o.image ?? 'the image'}`}
              >
                {percent === null ? '' : `${percent}%`}
              </progress>{' '}
              <span className="muted">{percent === null ? 'size not known yet' : `${percent}%`}</span>
              {o.pull && (
                <span className="muted">
                  {' '}
                  · {o.pull.status}
                  {o.pull.total_bytes > 0 &&
                    ` (${megabytes(o.pull.current_bytes)} of ${megabytes(o.pull.total_bytes)})`}
                </span>
              )}
            </dd>
          </>
        )}
        <dt>Desired</dt>
        <dd>{dep.desired_state === 'running' ? 'running' : 'stopped'}</dd>
        <dt>Since</dt>
        <dd>
          {o.since ? (
            <time dateTime={o.since} title={formatDate(o.since)}>
              {formatDate(o.since)} ({ago(o.since, now)})
            </time>
          ) : (
            '—'
          )}
        </dd>
        <dt>Restarts</dt>
        <dd>{o.restarts}</dd>
        <dt>Exit code</dt>
        <dd>{o.exit_code ?? '—'}</dd>
        <dt>Image</dt>
        <dd>{o.image ? <code>{o.image}</code> : '—'}</dd>
        <dt>Template</dt>
        <dd>
          <Link href={`/catalog/${encodeURIComponent(dep.template_slug)}`}>
            <code>{dep.template_slug}</code>
          </Link>{' '}
          version {dep.template_version}
        </dd>
        <dt>Update</dt>
        <dd>{update ? <strong>Version {update} is available</strong> : 'up to date'}</dd>
        {o.needs_restart && (
          <>
            <dt>Secrets</dt>
            <dd>
              <strong>A secret it uses has changed:</strong> restart it to pick up the new value.
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          {formatDate(dep.created_at)} by {dep.created_by}
        </dd>
      </dl>
      {isAdmin && <Actions deployment={dep} update={update} />}
    </section>
  );
}

const DONE: Record<DeploymentOperation, string> = {
  start: 'Start asked: Core is starting it.',
  stop: 'Stop asked: Core is stopping it.',
  restart: 'Restart asked: Core is restarting it.',
  'apply-update': 'Update asked: Core is replacing the container with the new version.',
};

function Actions({ deployment: dep, update }: { deployment: Deployment; update: string | null }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const op = useMutation({
    mutationFn: (which: DeploymentOperation) => hub.operate(dep.id, which),
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['deployment', dep.id] }),
        qc.invalidateQueries({ queryKey: ['deployment-events', dep.id] }),
      ]),
  });
  const remove = useMutation({
    mutationFn: (volumes: boolean) => hub.deleteDeployment(dep.id, { volumes }),
    onSuccess: async () => {
      qc.removeQueries({ queryKey: ['deployment', dep.id] });
      await qc.invalidateQueries({ queryKey: ['deployments'] });
      navigate('/deployments');
    },
  });
  const busy = op.isPending || remove.isPending;
  const button = (which: DeploymentOperation, label: string, primary = false) => (
    <button
      type="button"
      className={primary ? 'primary' : undefined}
      disabled={busy}
      onClick={() => op.mutate(which)}
      aria-label={`${label} ${dep.name}`}
    >
      {label}
    </button>
  );
  return (
    <div className="stack deployment-actions">
      <div className="actions" role="group" aria-label="Actions">
        {dep.desired_state === 'stopped' ? button('start', 'Start', true) : button('stop', 'Stop')}
        {button('restart', 'Restart')}
        {update && button('apply-update', 'Apply update', true)}
        <DeleteButton deployment={dep} busy={busy} onConfirm={(volumes) => remove.mutate(volumes)} />
      </div>
      <ErrorNotice error={op.error ?? remove.error} />
      {op.isSuccess && op.variables && (
        <p role="status" className="muted">
          {DONE[op.variables]}
        </p>
      )}
    </div>
  );
}

/** Delete asks once more, in place, and offers to delete the deployment's volumes too (kept by default). */
function DeleteButton({
  deployment: dep,
  busy,
  onConfirm,
}: {
  deployment: Deployment;
  busy: boolean;
  onConfirm: (volumes: boolean) => void;
}) {
  const [asking, setAsking] = useState(false);
  const [volumes, setVolumes] = useState(false);
  const checkbox = useId();
  if (!asking) {
    return (
      <button
        type="button"
        className="danger"
        aria-label={`Delete ${dep.name}`}
        disabled={busy}
        onClick={() => setAsking(true)}
      >
        Delete
      </button>
    );
  }
  return (
    <span className="confirm delete-confirm" role="group" aria-label={`Delete ${dep.name}?`}>
      <label htmlFor={checkbox} className="actions">
        <input id={checkbox} type="checkbox" checked={volumes} onChange={(e) => setVolumes(e.target.checked)} /> Also
        delete its volumes (their data is lost)
      </label>
      <button
        type="button"
        className="danger solid"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm(volumes);
        }}
      >
        Confirm delete {dep.name}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

function Ports({ deployment: dep }: { deployment: Deployment }) {
  const ports = dep.observed.ports;
  return (
    <section className="panel" aria-labelledby="ports-heading">
      <h2 id="ports-heading">Published ports</h2>
      {ports.length === 0 ? (
        <p className="muted">
          {dep.observed.state === 'running' ? 'This deployment publishes no ports.' : 'None published right now.'}
        </p>
      ) : (
        <ul className="plain-list ports">
          {ports.map((p) => (
            <li key={`${p.host_ip}:${p.host_port}/${p.protocol}`}>
              <code>
                {p.container_port}/{p.protocol.toLowerCase()}
              </code>{' '}
              →{' '}
              {p.protocol.toLowerCase() === 'tcp' ? (
                <a href={portUrl(p)} target="_blank" rel="noreferrer">
                  {portUrl(p)}
                </a>
              ) : (
                <code>
                  {p.host_ip}:{p.host_port}
                </code>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Events({ deployment: dep }: { deployment: Deployment }) {
  const events = useQuery({
    queryKey: ['deployment-events', dep.id],
    queryFn: () => core.activity({ target_type: 'deployment', target_id: dep.id, limit: 20 }),
    refetchInterval: POLL_MS * 3,
  });
  const all = `/activity?target_type=deployment&target_id=${encodeURIComponent(dep.id)}`;
  return (
    <section className="panel" aria-labelledby="events-heading">
      <h2 id="events-heading">Events</h2>
      <ErrorNotice error={events.error} />
      {events.data &&
        (events.data.entries.length === 0 ? (
          <p className="muted">No events yet.</p>
        ) : (
          <>
            <ListTable caption={`Events of ${dep.name}, newest first`} columns={['When', 'Who', 'What', 'Change']}>
              {events.data.entries.map((e) => (
                <tr key={e.id}>
                  <td data-label="When">{formatDate(e.at)}</td>
                  <td data-label="Who">{e.actor.label}</td>
                  <td data-label="What">{actionText(e)}</td>
                  <td data-label="Change">
                    <Change entry={e} />
                  </td>
                </tr>
              ))}
            </ListTable>
            {events.data.pagination.total > events.data.entries.length && (
              <p>
                <Link href={all}>All {events.data.pagination.total} events in the activity log</Link>
              </p>
            )}
          </>
        ))}
    </section>
  );
}

/** Core gives at most the last 10,000 lines. */
const TAILS = [100, 500, 2000, 10_000] as const;
type Tail = (typeof TAILS)[number];
/** How long a follower waits before asking for the logs of a container that runs again. */
const RECONNECT_MS = 3_000;
/** What the page keeps of a long-running stream (the newest part). */
const KEEP_CHARS = 400_000;

type StreamState = { phase: 'connecting' | 'streaming' | 'ended' } | { phase: 'failed'; error: unknown };

function Logs({ deployment: dep }: { deployment: Deployment }) {
  const [tail, setTail] = useState<Tail>(100);
  const [follow, setFollow] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const [text, setText] = useState('');
  const [stream, setStream] = useState<StreamState>({ phase: 'connecting' });
  const box = useRef<HTMLPreElement>(null);
  const atBottom = useRef(true);
  const tailId = useId();

  useEffect(() => {
    const ctl = new AbortController();
    // The lines shown stay until the new answer's first piece replaces them (no flash on a reconnect).
    let fresh = true;
    setStream({ phase: 'connecting' });
    streamLogs(dep.id, {
      tail,
      follow,
      signal: ctl.signal,
      onOpen: () => setStream({ phase: 'streaming' }),
      onText: (chunk) => {
        const replace = fresh;
        fresh = false;
        setText((t) => {
          const next = replace ? chunk : t + chunk;
          return next.length > KEEP_CHARS ? next.slice(next.indexOf('\n', next.length - KEEP_CHARS) + 1) : next;
        });
      },
    }).then(
      () => {
        if (ctl.signal.aborted) return;
        if (fresh) setText('');
        setStream({ phase: 'ended' });
      },
      (error: unknown) => !ctl.signal.aborted && setStream({ phase: 'failed', error }),
    );
    return () => ctl.abort();
  }, [dep.id, tail, follow, attempt]);

  // Another deployment's lines never show under this one's name.
  useEffect(() => setText(''), [dep.id]);

  // Following: a stream that ended or failed comes back once a container runs (after a restart, a replacement, a
  // pull that finished), a few seconds later rather than at once, so a container that keeps exiting is not hammered.
  const running = dep.observed.state === 'running';
  const settled = stream.phase === 'ended' || stream.phase === 'failed';
  useEffect(() => {
    if (!follow || !running || !settled) return;
    const timer = setTimeout(() => setAttempt((n) => n + 1), RECONNECT_MS);
    return () => clearTimeout(timer);
  }, [follow, running, settled]);

  // Keep the newest line in view while the reader has not scrolled up.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  const status =
    stream.phase === 'connecting'
      ? 'Connecting…'
      : stream.phase === 'streaming'
        ? follow
          ? 'Following: new lines appear as the container prints them.'
          : 'Loaded.'
        : stream.phase === 'ended'
          ? follow
            ? running
              ? 'The stream ended (the container restarted or was replaced): reconnecting…'
              : 'The stream ended: the container is not running. It resumes when the container runs again.'
            : 'Loaded.'
          : '';
  return (
    <section className="panel" aria-labelledby="logs-heading">
      <div className="row">
        <h2 id="logs-heading">Logs</h2>
        <div className="actions log-controls">
          <label htmlFor={tailId}>Lines</label>
          <select id={tailId} value={String(tail)} onChange={(e) => setTail(Number(e.target.value) as Tail)}>
            {TAILS.map((t) => (
              <option key={t} value={String(t)}>
                last {t.toLocaleString()}
              </option>
            ))}
          </select>
          <label className="actions">
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
          </label>
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Reload
          </button>
        </div>
      </div>
      <p className="muted">Only admins see logs: a process can print its secrets.</p>
      {stream.phase === 'failed' && stream.error instanceof ApiError && stream.error.status === 409 ? (
        // No container yet (pending, pulling, failed before it was created): a fact about the deployment, not an error.
        <p className="muted" role="status">
          No logs yet: there is no container yet (its state is above). They appear once it runs.
        </p>
      ) : stream.phase === 'failed' ? (
        <ErrorNotice error={stream.error} />
      ) : (
        <p className="muted" role="status">
          {status}
        </p>
      )}
      {/* Kept while a failed stream had printed something: the lines it gave stay readable. */}
      {(stream.phase !== 'failed' || text !== '') && (
        <pre
          ref={box}
          className="logs"
          // Named, focusable (it scrolls), and quiet: a screen reader is not read every new line.
          role="log"
          aria-live="off"
          tabIndex={0}
          aria-label={`Logs of ${dep.name}`}
          onScroll={(e) => {
            const el = e.currentTarget;
            atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
          }}
        >
          {text || (stream.phase === 'connecting' ? '' : 'No output.')}
        </pre>
      )}
    </section>
  );
}
