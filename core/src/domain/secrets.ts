/**
 * The fleet's secrets. Values are sealed (AES-256-GCM) at rest and leave only through readSecret,
 * which the API lets only admins call. Listing shows names, descriptions and timestamps.
 */
import { asc, eq } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { deploymentSecretBindings, deployments, secrets } from '../db/schema';
import { sealedFields, type Sealer } from './crypto';
import { recordActivity, type Actor } from './activity';
import { ServiceError } from './errors';

export const SECRET_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
type SecretRow = typeof secrets.$inferSelect;

const describe = (s: SecretRow) => ({
  name: s.name,
  description: s.description,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

export async function listSecrets(db: Db) {
  const rows = await db.select().from(secrets).orderBy(asc(secrets.name));
  return { secrets: rows.map(describe) };
}

export async function readSecret(db: Db, sealer: Sealer, name: string) {
  const [row] = await db.select().from(secrets).where(eq(secrets.name, name));
  if (!row) throw secretNotFound(name);
  return { ...describe(row), value: sealer.open(sealedFields.secret(name), row.sealedValue) };
}

/** The message names the secret: 'secret "x" not found'. */
const secretNotFound = (name: string) => new ServiceError('not_found', `secret ${JSON.stringify(name)} not found`);

/** The activity log records that a value was set or changed, never the value (nor its ciphertext). */
export async function putSecret(
  db: Db,
  sealer: Sealer,
  name: string,
  input: { value: string; description?: string },
  actor: Actor,
) {
  const sealedValue = sealer.seal(sealedFields.secret(name), input.value);
  const now = new Date();
  return db.transaction(async (tx) => {
    const [old] = await tx.select().from(secrets).where(eq(secrets.name, name)).for('update');
    const [row] = await tx
      .insert(secrets)
      .values({ name, description: input.description ?? '', sealedValue })
      .onConflictDoUpdate({
        target: secrets.name,
        set: {
          sealedValue,
          updatedAt: now,
          ...(input.description !== undefined ? { description: input.description } : {}),
        },
      })
      .returning();
    const valueChanged = !old || sealer.open(sealedFields.secret(name), old.sealedValue) !== input.value;
    const before = old ? { description: old.description, value: 'set' } : null;
    const after = { description: row!.description, value: old ? (valueChanged ? 'changed' : 'unchanged') : 'set' };
    await recordActivity(tx, actor, {
      action: old ? 'secret.update' : 'secret.create',
      target: { type: 'secret', id: name, name },
      before,
      after,
    });
    return describe(row!);
  });
}

/** A bound secret is not deleted (the binding's foreign key restricts it too): the message names the bindings. */
export async function deleteSecret(db: Db, name: string, actor: Actor) {
  const bound = await db
    .select({ deployment: deployments.name, variable: deploymentSecretBindings.variable })
    .from(deploymentSecretBindings)
    .innerJoin(deployments, eq(deployments.id, deploymentSecretBindings.deploymentId))
    .where(eq(deploymentSecretBindings.secretName, name));
  if (bound.length > 0) throw boundConflict(name, bound);
  try {
    await db.transaction(async (tx) => {
      const deleted = await tx.delete(secrets).where(eq(secrets.name, name)).returning();
      if (deleted.length === 0) throw secretNotFound(name);
      await recordActivity(tx, actor, {
        action: 'secret.delete',
        target: { type: 'secret', id: name, name },
        before: { description: deleted[0]!.description },
      });
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw boundConflict(name, []);
    throw err;
  }
}

const boundConflict = (name: string, bound: { deployment: string; variable: string }[]) =>
  new ServiceError(
    'conflict',
    `secret ${name} is bound by ${bound.length ? bound.map((b) => `deployment ${b.deployment} (${b.variable})`).join(', ') : 'a deployment'}: ` +
      'bind those variables to another secret first',
  );

function isForeignKeyViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.code === '23503') return true;
  }
  return false;
}

/** Creates a secret unless the name is taken; true when created (the deployments' start-up migration). */
export async function createSecretIfAbsent(
  tx: Tx,
  sealer: Sealer,
  name: string,
  value: string,
  description: string,
): Promise<boolean> {
  const created = await tx
    .insert(secrets)
    .values({ name, description, sealedValue: sealer.seal(sealedFields.secret(name), value) })
    .onConflictDoNothing()
    .returning({ name: secrets.name });
  return created.length > 0;
}
