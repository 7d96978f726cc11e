/**
 * Open /mcp calls and streams per personal access token (HUB_MCP_MAX_STREAMS_PER_TOKEN) and per person over all
 * their tokens (HUB_MCP_MAX_STREAMS_PER_USER), counted in this process.
 */
import { config } from '../../config';
import type { ResolvedPat } from '../../domain/pats';

/** Calls and streams open per token, and per person over all their tokens, in this process. */
const openPerToken = new Map<string, number>();
const openPerUser = new Map<string, number>();

function decrement(map: Map<string, number>, key: string) {
  const left = (map.get(key) ?? 1) - 1;
  if (left <= 0) map.delete(key);
  else map.set(key, left);
}

/**
 * Takes one of the token's slots and one of its person's; returns the release (idempotent), or which limit is
 * reached.
 */
export function takeSlot(pat: ResolvedPat): (() => void) | 'token' | 'person' {
  const byToken = openPerToken.get(pat.tokenId) ?? 0;
  if (byToken >= config.mcpMaxStreamsPerToken) return 'token';
  const byUser = openPerUser.get(pat.userId) ?? 0;
  if (byUser >= config.mcpMaxStreamsPerUser) return 'person';
  openPerToken.set(pat.tokenId, byToken + 1);
  openPerUser.set(pat.userId, byUser + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    decrement(openPerToken, pat.tokenId);
    decrement(openPerUser, pat.userId);
  };
}

/** Open calls and streams of a token in this process (tests, diagnostics). */
export function openMcpCalls(tokenId: string): number {
  return openPerToken.get(tokenId) ?? 0;
}

/** Open calls and streams of a person, over all their tokens, in this process (tests, diagnostics). */
export function openMcpCallsOfUser(userId: string): number {
  return openPerUser.get(userId) ?? 0;
}
