/**
 * The fleet's secrets. Values are sealed (AES-256-GCM) at rest and leave only through readSecret,
 * which the API lets only admins call. Listing shows names, descriptions and timestamps.
 */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { secrets } from '../db/schema';
import type { Sealer } from './crypto';
import { notFound } from './errors';

export const SECRET_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
type SecretRow = typeof secrets.$inferSelect;

const describe = (s: SecretRow) => ({
  name: s.name,
  description: s.description,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});
// The purpose binds a ciphertext to its secret's name: swapping two rows' values does not decrypt.
const purpose = (name: string) => `secret:${name}`;

export async function listSecrets(db: Db) {
  const rows = await db.select().from(secrets).orderBy(asc(secrets.name));
  return { secrets: rows.map(describe) };
}

export async function readSecret(db: Db, sealer: Sealer, name: string) {
  const [row] = await db.select().from(secrets).where(eq(secrets.name, name));
  if (!row) throw notFound('secret');
  return { ...describe(row), value: sealer.open(purpose(name), row.sealedValue) };
}

export async function putSecret(db: Db, sealer: Sealer, name: string, input: { value: string; description?: string }) {
  const sealedValue = sealer.seal(purpose(name), input.value);
  const now = new Date();
  const [row] = await db
    .insert(secrets)
    .values({ name, description: input.description ?? '', sealedValue })
    .onConflictDoUpdate({
      target: secrets.name,
      set: { sealedValue, updatedAt: now, ...(input.description !== undefined ? { description: input.description } : {}) },
    })
    .returning();
  return describe(row!);
}

export async function deleteSecret(db: Db, name: string) {
  const deleted = await db.delete(secrets).where(eq(secrets.name, name)).returning({ name: secrets.name });
  if (deleted.length === 0) throw notFound('secret');
}
