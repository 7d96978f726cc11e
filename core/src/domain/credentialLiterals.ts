/**
 * Literal deployment values that carry a credential (issue 34). A literal is shown to every reader of the
 * deployment, the activity log and the overview; a credential belongs in a sealed secret that the deployment
 * binds (`{"secret": "<name>"}`). Two rules on top of the credential-named variables (deployments.ts):
 * - validation refuses a literal whose value carries a credential, whatever the variable's name
 *   (@shared/tokens findCredentialInValue: a URL's password or token, password=… parameters and `password: …`
 *   settings, private keys, our tokens);
 * - at start, literals stored before the rule (by value or by name) move into secrets and bindings, and the
 *   activity entries that quoted them are redacted, in one transaction recorded as done by the system.
 */
import { and, eq, sql } from 'drizzle-orm';
import { findCredentialInValue, isCredentialName } from '@shared/tokens/credential-names';
import type { Db, Tx } from '../db/client';
import { activity, deploymentSecretBindings, deployments } from '../db/schema';
import { recordActivity, SYSTEM_ACTOR } from './activity';
import type { Sealer } from './crypto';
import { ServiceError } from './errors';
import { createSecretIfAbsent, SECRET_NAME } from './secrets';

type Env = Record<string, string | { secret: string }>;

/** What replaces a credential in an activity entry. */
export const REDACTED = '[redacted]';

/** Why a literal may not be stored: its name marks a credential, or its value carries one; null when it may. */
function credentialIn(variable: string, value: string): string | null {
  if (isCredentialName(variable)) return 'its name marks a credential';
  return findCredentialInValue(value)?.description ?? null;
}

/**
 * Validation: refuses (400) literals whose value carries a credential, naming each variable and what it carries
 * (never the value), and saying how to bind a secret instead.
 */
export function refuseCredentialValues(env: Env): void {
  const found = Object.entries(env).flatMap(([variable, v]) => {
    const finding = typeof v === 'string' ? findCredentialInValue(v) : null;
    return finding ? [`${variable} (${finding.description})`] : [];
  });
  if (found.length === 0) return;
  const first = found[0]!.split(' ')[0]!;
  throw new ServiceError(
    'invalid',
    `env: ${found.join(', ')} ${found.length > 1 ? 'carry credentials' : 'carries a credential'} in a literal value, ` +
      'which every reader of the deployment and the activity log would see: create a secret holding the whole value ' +
      `(PUT /api/v1/secrets/<secret name>) and bind it instead, e.g. "${first}": {"secret": "<secret name>"}`,
  );
}

// A superset of credentialIn, for the database to pick the activity entries worth a look (checked exactly in JS).
const LOOSE_KEY = 'password|secret|token|key|credential';
const LOOSE_WORD = '(password|passwd|pwd|secret|token|api[_-]?key|apikey)';
// A percent escape makes a value suspect too: the exact check decodes it (password%3D…, an encoded URL).
const LOOSE_VALUE = [
  `${LOOSE_WORD}[[:space:]]*=`,
  // a JSON field, a YAML/INI setting (`password: x`, quoted keys too)
  `${LOOSE_WORD}["']?[[:space:]]*:`,
  // a URL's userinfo: user:password@, or a token alone (token@)
  '://[^[:space:]/?#@]+@',
  'private key',
  'sv[hpm]_[0-9a-z]{38}',
  '%[0-9a-f]{2}',
].join('|');

const envOf = (side: typeof activity.before | typeof activity.after) =>
  sql`jsonb_each(case when jsonb_typeof(${side}->'env') = 'object' then ${side}->'env' else '{}'::jsonb end)`;

/** Activity entries of deployments whose env may quote a credential literal not yet redacted. */
const suspectEntries = (q: Db | Tx) =>
  q
    .select({
      id: activity.id,
      targetId: activity.targetId,
      targetName: activity.targetName,
      before: activity.before,
      after: activity.after,
    })
    .from(activity)
    .where(
      and(
        eq(activity.targetType, 'deployment'),
        sql`exists (select 1 from (select * from ${envOf(activity.before)} union all select * from ${envOf(activity.after)}) v(key, value)
          where jsonb_typeof(v.value) = 'string' and left(v.value #>> '{}', ${REDACTED.length - 1}) <> ${REDACTED.slice(0, -1)}
            and (v.key ~* ${LOOSE_KEY} or (v.value #>> '{}') ~* ${LOOSE_VALUE}))`,
      ),
    );

/** The entry's before/after with every credential literal of its env replaced; null when nothing changed. */
function redacted(side: Record<string, unknown> | null, moved: Map<string, string>) {
  const env = side?.env;
  if (!side || !env || typeof env !== 'object' || Array.isArray(env)) return null;
  let changed = false;
  const next: Record<string, unknown> = {};
  for (const [variable, v] of Object.entries(env as Record<string, unknown>)) {
    if (typeof v === 'string' && !v.startsWith(REDACTED.slice(0, -1)) && (moved.has(v) || credentialIn(variable, v))) {
      const secret = moved.get(v);
      next[variable] = secret ? `${REDACTED.slice(0, -1)}: moved to secret ${secret}]` : REDACTED;
      changed = true;
    } else next[variable] = v;
  }
  return changed ? { ...side, env: next } : null;
}

export interface MovedLiteral {
  deployment: string;
  variable: string;
  secret: string;
}

/** A lock shared by every Core process that migrates at start: one moves, the others then find nothing. */
const MIGRATION_LOCK = 72_620_034;

/**
 * Start-up migration: every literal carrying a credential (by name or by value) becomes a sealed secret
 * `deploy.<deployment>.<VAR>` (a free suffix when taken) and a binding; the activity entries quoting such
 * literals (of any deployment, deleted ones too) are redacted; each change is recorded as done by the system.
 * One transaction. Idempotent, and two reads when there is nothing to do. Answers what moved (names only).
 */
export async function moveCredentialValues(
  db: Db,
  sealer: Sealer,
): Promise<{ moved: MovedLiteral[]; redacted: number }> {
  const pending = async (q: Db | Tx) => {
    const rows = await q.select({ id: deployments.id, name: deployments.name, env: deployments.env }).from(deployments);
    const literals = rows.flatMap((row) =>
      Object.entries(row.env).flatMap(([variable, value]) =>
        typeof value === 'string' && credentialIn(variable, value) ? [{ row, variable, value }] : [],
      ),
    );
    const entries = (await suspectEntries(q)).filter(
      (e) => redacted(e.before, new Map()) || redacted(e.after, new Map()),
    );
    return { literals, entries };
  };
  if (Object.values(await pending(db)).every((list) => list.length === 0)) return { moved: [], redacted: 0 };

  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    const { literals } = await pending(tx);
    const moved: MovedLiteral[] = [];
    const byValue = new Map<string, string>();
    const byDeployment = new Map<string, { name: string; env: Record<string, string>; vars: MovedLiteral[] }>();
    for (const { row, variable, value } of literals) {
      const base = `deploy.${row.name}.${variable.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, 120);
      let name = base;
      for (
        let n = 2;
        !(await createSecretIfAbsent(
          tx,
          sealer,
          name,
          value,
          `moved from deployment ${row.name}, variable ${variable}: a literal carrying a credential`,
        ));
        n++
      )
        name = `${base}.${n}`;
      if (!SECRET_NAME.test(name))
        throw new Error(`migration produced an invalid secret name for ${row.name}.${variable}`);
      await tx
        .insert(deploymentSecretBindings)
        .values({ deploymentId: row.id, variable, secretName: name })
        .onConflictDoUpdate({
          target: [deploymentSecretBindings.deploymentId, deploymentSecretBindings.variable],
          set: { secretName: name },
        });
      const entry = { deployment: row.name, variable, secret: name };
      moved.push(entry);
      byValue.set(value, name);
      const d = byDeployment.get(row.id) ?? { name: row.name, env: { ...row.env }, vars: [] };
      delete d.env[variable];
      d.vars.push(entry);
      byDeployment.set(row.id, d);
    }
    for (const [id, d] of byDeployment) {
      await tx.update(deployments).set({ env: d.env, updatedAt: new Date() }).where(eq(deployments.id, id));
    }

    // Every entry quoting a credential literal, including the moved values under any variable name.
    let count = 0;
    const redactedOf = new Map<string, { name: string; entries: number }>();
    for (const e of await suspectEntries(tx)) {
      const before = redacted(e.before, byValue);
      const after = redacted(e.after, byValue);
      if (!before && !after) continue;
      await tx
        .update(activity)
        .set({ ...(before ? { before } : {}), ...(after ? { after } : {}) })
        .where(eq(activity.id, e.id));
      count++;
      const r = redactedOf.get(e.targetId) ?? { name: e.targetName, entries: 0 };
      r.entries++;
      redactedOf.set(e.targetId, r);
    }

    for (const [id, d] of byDeployment) {
      await recordActivity(tx, SYSTEM_ACTOR, {
        action: 'deployment.credentials_moved',
        target: { type: 'deployment', id, name: d.name },
        before: { env: Object.fromEntries(d.vars.map((v) => [v.variable, REDACTED])) },
        after: {
          env: Object.fromEntries(d.vars.map((v) => [v.variable, { secret: v.secret }])),
          redacted_activity_entries: redactedOf.get(id)?.entries ?? 0,
        },
      });
    }
    for (const [id, r] of redactedOf) {
      if (byDeployment.has(id)) continue;
      await recordActivity(tx, SYSTEM_ACTOR, {
        action: 'deployment.activity_redacted',
        target: { type: 'deployment', id, name: r.name },
        after: { redacted_activity_entries: r.entries },
      });
    }
    return { moved, redacted: count };
  });
}
