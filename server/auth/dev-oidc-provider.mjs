/**
 * The development OpenID provider: a real OpenID Connect server (the `oidc-provider` package) on
 * 127.0.0.1 that signs in anyone with any email, for a machine that has no identity provider yet.
 * `npm start` runs it when OIDC_ISSUER is unset; the end-to-end tests run it too. Never for production.
 *
 * Plain ESM JavaScript so that scripts/start.mjs (plain node) and the Playwright tests both import it.
 *
 *   const dev = await startDevOidcProvider({ port: 3001, redirectUris: ['http://localhost:3000/api/auth/callback/oidc'] });
 *   // dev.issuer, dev.clientId, dev.clientSecret, dev.env (OIDC_* variables for the Hub), await dev.close()
 */
/* global Buffer, URLSearchParams */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';

export const DEV_CLIENT_ID = 'hub-dev';

/** A stable subject per email, so that a returning person is the same identity after a restart. */
export function devSubjectFor(email) {
  return 'dev-' + createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
}

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function loginPage({ uid, clientName, error, email = '', name = '' }) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development sign-in</title>
<style>
  body{font-family:system-ui,sans-serif;background:#f4f4f5;color:#18181b;margin:0;display:grid;place-items:center;min-height:100vh}
  main{background:#fff;border:1px solid #d4d4d8;border-radius:12px;padding:28px;max-width:380px;width:calc(100% - 32px);box-sizing:border-box}
  h1{font-size:1.25rem;margin:0 0 8px} p{font-size:.9rem;line-height:1.45;color:#3f3f46}
  .warn{background:#fef3c7;border:1px solid #d97706;color:#78350f;border-radius:8px;padding:8px 10px}
  label{display:block;font-weight:600;font-size:.9rem;margin:14px 0 4px}
  input{width:100%;box-sizing:border-box;padding:9px 10px;border:1px solid #71717a;border-radius:8px;font-size:1rem}
  button{margin-top:18px;width:100%;padding:10px;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font-size:1rem;font-weight:600;cursor:pointer}
  .error{color:#b91c1c;font-weight:600}
</style></head>
<body><main>
  <h1>Development sign-in</h1>
  <p class="warn">This is the Hub's built-in <strong>development</strong> identity provider. It signs in anyone with any
  email and checks no password. Configure a real OpenID Connect provider (OIDC_ISSUER, OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET) for real use.</p>
  <p>Signing in to <strong>${escapeHtml(clientName)}</strong>.</p>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
  <form method="post" action="/interaction/${escapeHtml(uid)}/login" autocomplete="off">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" required autofocus value="${escapeHtml(email)}">
    <label for="name">Name (optional)</label>
    <input id="name" name="name" type="text" value="${escapeHtml(name)}">
    <button type="submit">Sign in</button>
  </form>
</main></body></html>`;
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 16_384) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts the provider. Options: port (0 = any free port), host (127.0.0.1), redirectUris (the Hub's
 * /api/auth/callback/oidc URLs), clientSecret (random when omitted), quiet.
 */
export async function startDevOidcProvider({
  port = 0,
  host = '127.0.0.1',
  redirectUris,
  clientSecret,
  quiet = false,
} = {}) {
  if (!redirectUris || redirectUris.length === 0) throw new Error('startDevOidcProvider: redirectUris is required');
  const { default: Provider } = await import('oidc-provider');

  const server = http.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const actualPort = server.address().port;
  const issuer = `http://${host}:${actualPort}`;
  const secret = clientSecret ?? randomBytes(24).toString('base64url');
  /** email (lower-case) → display name given at sign-in; subjects are derived from the email. */
  const people = new Map();

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = {
    ...privateKey.export({ format: 'jwk' }),
    alg: 'ES256',
    use: 'sig',
    kid: 'dev-' + randomBytes(4).toString('hex'),
  };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: DEV_CLIENT_ID,
        client_secret: secret,
        client_name: 'Hub',
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const email = [...people.keys()].find((e) => devSubjectFor(e) === sub);
      if (!email) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email, email_verified: true, name: people.get(email) || email.split('@')[0] }),
      };
    },
    ttl: { Session: 600, Interaction: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 300, IdToken: 300 },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body =
        '<!doctype html><html lang="en"><head><title>Sign-in error</title></head><body><main><h1>Sign-in error</h1>' +
        `<p>${escapeHtml(out.error)}: ${escapeHtml(out.error_description ?? '')}</p></main></body></html>`;
    },
  });
  provider.proxy = false;
  const callback = provider.callback();

  server.on('request', async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', issuer);
      const match = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(url.pathname);
      if (!match) return callback(req, res);
      const details = await provider.interactionDetails(req, res);
      if (details.uid !== match[1]) throw new Error('interaction mismatch');
      const clientName = 'Hub';

      if (details.prompt.name === 'consent') {
        // The Hub is the only client and asks for the usual scopes: grant them without a second screen.
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
        grant.addOIDCScope(String(details.params.scope ?? 'openid'));
        const grantId = await grant.save();
        return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      }

      if (req.method === 'POST' && match[2]) {
        const form = await readForm(req);
        const email = (form.get('email') ?? '').trim().toLowerCase();
        const name = (form.get('name') ?? '').trim().slice(0, 200);
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
          res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
          return res.end(
            loginPage({ uid: details.uid, clientName, error: 'Enter a valid email address.', email, name }),
          );
        }
        people.set(email, name);
        return provider.interactionFinished(
          req,
          res,
          { login: { accountId: devSubjectFor(email) } },
          { mergeWithLastSubmission: false },
        );
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(loginPage({ uid: details.uid, clientName }));
    } catch (err) {
      if (!quiet) console.error('[dev-oidc] interaction failed:', err instanceof Error ? err.message : err);
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('This sign-in attempt expired or is invalid. Go back to the Hub and sign in again.');
    }
  });

  if (!quiet) console.log(`[hub] development OpenID provider at ${issuer} (any email signs in; not for production)`);

  return {
    issuer,
    port: actualPort,
    clientId: DEV_CLIENT_ID,
    clientSecret: secret,
    /** Environment for the Hub process that uses this provider. */
    env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: DEV_CLIENT_ID, OIDC_CLIENT_SECRET: secret, HUB_DEV_OIDC_PROVIDER: '1' },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve(undefined));
      }),
  };
}
