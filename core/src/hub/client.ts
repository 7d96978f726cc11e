/**
 * Core's client of the Hub: openapi-fetch over the types generated from the Hub's OpenAPI document
 * (hub-api.d.ts from hub-openapi.json; refresh both with `npm run hub-client`). Every failure becomes a
 * HubError that says whose fault it is: the Hub refused the key (401), refused the request (other 4xx),
 * or was unreachable / failing (network, timeout, 5xx) — the sync loop backs off only on the last.
 */
import createClient from 'openapi-fetch';
import type { paths } from './hub-api';

export type HubTemplate =
  paths['/catalog/templates']['get']['responses'][200]['content']['application/json']['templates'][number];
export type HubInstanceInfo = paths['/instance-info']['get']['responses'][200]['content']['application/json'];
export type HubUpdates = paths['/catalog/templates/updates']['get']['responses'][200]['content']['application/json'];

export type HubFault = 'key_refused' | 'rejected' | 'unavailable';

export class HubError extends Error {
  constructor(
    readonly fault: HubFault,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

const TIMEOUT_MS = 15_000;

export function createHubClient(hubUrl: string, instanceKey: string) {
  const client = createClient<paths>({
    baseUrl: `${hubUrl}/api/v1`,
    headers: { authorization: `Bearer ${instanceKey}`, 'user-agent': 'core' },
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(TIMEOUT_MS) }),
  });

  /** Runs one call; returns its data or throws a HubError. `allow` lists extra statuses that are answers (304). */
  async function call<T>(
    what: string,
    run: () => Promise<{ data?: T; error?: unknown; response: Response }>,
    allow: number[] = [],
  ) {
    let result;
    try {
      result = await run();
    } catch (err) {
      const reason =
        err instanceof Error && err.name === 'TimeoutError'
          ? `no answer within ${TIMEOUT_MS / 1000} s`
          : describeNetworkError(err);
      throw new HubError('unavailable', `the Hub at ${hubUrl} is unreachable (${what}: ${reason})`);
    }
    const { data, error, response } = result;
    if (response.ok || allow.includes(response.status)) return { data, response };
    const detail = errorMessage(error);
    if (response.status === 401) {
      throw new HubError(
        'key_refused',
        `the Hub refused the instance key (${what}: 401${detail ? `, ${detail}` : ''})`,
        401,
      );
    }
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      throw new HubError(
        'unavailable',
        `the Hub answered ${response.status} to ${what}${detail ? `: ${detail}` : ''}`,
        response.status,
      );
    }
    throw new HubError(
      'rejected',
      `the Hub refused ${what} (${response.status}${detail ? `: ${detail}` : ''})`,
      response.status,
    );
  }

  return {
    instanceInfo: async () =>
      (await call('GET /instance-info', () => client.GET('/instance-info'))).data as HubInstanceInfo,
    reportInstance: async (body: { version: string; base_url: string; mcp_url: string }) =>
      (await call('PUT /instance-info', () => client.PUT('/instance-info', { body }))).data as HubInstanceInfo,
    putDns: async () => (await call('PUT /dns', () => client.PUT('/dns', { body: {} }))).data,
    listTemplates: async (page: number, limit: number) =>
      (
        await call('GET /catalog/templates', () =>
          client.GET('/catalog/templates', { params: { query: { page, limit } } }),
        )
      ).data!,
    /** null: 304 Not Modified for this ETag. */
    updates: async (since: string, etag: string | null) => {
      const { data, response } = await call(
        'GET /catalog/templates/updates',
        () =>
          client.GET('/catalog/templates/updates', {
            params: { query: { since } },
            headers: etag ? { 'if-none-match': etag } : {},
          }),
        [304],
      );
      if (response.status === 304) return null;
      // has_more: a Hub that caps one answer says so; the client asks again from checked_at until it is false.
      const body = data as HubUpdates & { has_more?: boolean };
      return { ...body, has_more: body.has_more === true, etag: response.headers.get('etag') };
    },
  };
}

export type HubClient = ReturnType<typeof createHubClient>;

/** The Hub's error body {code, message, request_id} in a few words; its request id lets the Hub's operator find the call. */
function errorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') {
    const id =
      'request_id' in error && typeof error.request_id === 'string'
        ? ` [Hub request ${error.request_id.slice(0, 128)}]`
        : '';
    return error.message.slice(0, 300) + id;
  }
  return typeof error === 'string' ? error.slice(0, 300) : '';
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
