/**
 * Runs once when the Next.js server starts: open the database (applying migrations) before the first
 * request, so a broken DATABASE_URL or a locked data directory fails the start, not a request.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return;
  const { getDatabase } = await import('./server/db/client');
  const database = await getDatabase();
  console.log(`[hub] database ready (${database.kind})`);
}
