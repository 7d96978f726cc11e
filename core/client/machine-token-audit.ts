/**
 * What automation does with Core, through the client generated from Core's OpenAPI document (core-api.d.ts,
 * openapi-typescript; calls by openapi-fetch): an admin signs in and creates a readonly machine token, the
 * token lists the deployments, and the admin reads the token's audit records. It prints a JSON summary and
 * exits 0, or names the failed step and exits 1. CI runs it against Core's real process
 * (core/tests/core-client.test.ts), so Core's document cannot drift from what Core serves.
 *
 *   CORE_URL=https://core.example.org CORE_USERNAME=… CORE_PASSWORD=… npx tsx core/client/machine-token-audit.ts
 */
import createClient from 'openapi-fetch';
import type { paths } from './core-api';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
};

/** The answer's data, or an error naming the step and Core's error body (code, message, request_id). */
function ok<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${step}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

async function main() {
  const core = createClient<paths>({ baseUrl: env('CORE_URL') });

  const session = ok(
    'sign in',
    await core.POST('/api/v1/auth/login', {
      body: { username: env('CORE_USERNAME'), password: env('CORE_PASSWORD') },
    }),
  );
  const asAdmin = { headers: { authorization: `Bearer ${session.access_token}` } };

  const token = ok(
    'create a machine token',
    await core.POST('/api/v1/tokens', {
      ...asAdmin,
      body: { name: `automation ${new Date().toISOString()}`, role: 'readonly', expires_in_days: 1 },
    }),
  );

  const deployments = ok(
    'list deployments',
    await core.GET('/api/v1/deployments', {
      headers: { authorization: `Bearer ${token.token}` },
      params: { query: { page: 1, limit: 100 } },
    }),
  );

  const audit = ok(
    'read the audit records',
    await core.GET('/api/v1/tokens/{id}/audit', { ...asAdmin, params: { path: { id: token.id }, query: {} } }),
  );

  console.log(
    JSON.stringify({
      token: { id: token.id, role: token.role, prefix: token.prefix },
      deployments: deployments.pagination.total,
      audit: audit.records.map((r) => ({ method: r.method, path: r.path, status: r.status })),
    }),
  );
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
