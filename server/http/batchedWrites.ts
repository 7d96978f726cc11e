import { flushRateLimits } from '../api/rateLimit';
import { flushLastUsed } from '../auth/lastUsed';
import { flushDownloads } from '../domain/catalog/downloads';
import { flushMcpCalls } from '../domain/mcpCalls';
import { flushUsage } from '../domain/usage';
import { logger } from '../log';

/**
 * Writes what the batched writers hold (download counts, poll tallies, last-used marks, MCP call records, shared
 * rate-limit counts) to the open database: before it closes, so that nothing counted is lost or lands in another
 * database.
 */
export async function flushBatchedWrites(): Promise<void> {
  const writers = {
    downloads: flushDownloads,
    usage: flushUsage,
    last_used: flushLastUsed,
    mcp_calls: flushMcpCalls,
    rate_limit: flushRateLimits,
  };
  // One after the other (each its own statement or transaction); one that fails does not keep the others from writing.
  for (const [writer, flush] of Object.entries(writers))
    await flush().catch((err) => logger.error({ err: (err as Error).message, writer }, 'batched writes not stored'));
}
