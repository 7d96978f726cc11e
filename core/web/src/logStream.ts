/**
 * A deployment's logs (admins only: a process can print its secrets). `GET …/logs?tail=N&follow=true` answers
 * plain text that keeps coming while the container runs, so it is read with fetch's body reader, not as JSON.
 */
import { ApiError } from './http';
import { api, sessionStore } from './session';

export interface LogOptions {
  tail: number;
  follow: boolean;
  signal: AbortSignal;
  /** Core accepted: the stream is open (a quiet container may print nothing for a long time). */
  onOpen?: () => void;
  /** Each decoded piece of text, as it arrives. */
  onText: (text: string) => void;
}

/** Terminal colour codes would show as noise in the page. */
// eslint-disable-next-line no-control-regex -- the escape character is what this removes
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

async function open(url: URL, signal: AbortSignal): Promise<Response> {
  const token = sessionStore.get().session?.access_token;
  if (!token) throw new ApiError(401, 'UNAUTHORIZED', 'You are not signed in.');
  try {
    return await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/plain' }, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiError(0, 'network', 'Core cannot be reached. Check your connection and try again.');
  }
}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { code?: string; message?: string; request_id?: string } | null;
  return new ApiError(
    res.status,
    body?.code ?? `http_${res.status}`,
    body?.message ?? `Core answered ${res.status}.`,
    null,
    body?.request_id ?? res.headers.get('x-request-id'),
  );
}

/** Streams the logs into onText until the container's stream ends or the signal aborts; throws Core's refusal. */
export async function streamLogs(deploymentId: string, opts: LogOptions): Promise<void> {
  const url = new URL(`/api/v1/deployments/${encodeURIComponent(deploymentId)}/logs`, location.origin);
  url.searchParams.set('tail', String(opts.tail));
  if (opts.follow) url.searchParams.set('follow', 'true');
  let res = await open(url, opts.signal);
  if (res.status === 401) {
    // An expired access token: any authorized call refreshes it (session.ts), then the stream is asked for again.
    await api('GET', '/auth/me');
    res = await open(url, opts.signal);
  }
  if (!res.ok) throw await failure(res);
  opts.onOpen?.();
  if (!res.body) {
    opts.onText((await res.text()).replace(ANSI, ''));
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      opts.onText(value.replace(ANSI, ''));
    }
  } finally {
    reader.releaseLock();
  }
}
