/** The record of MCP tool calls: who (and through what), which tool, the outcome. */
import { pagination } from '@shared/ops';
import { count, desc } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mcpToolCalls } from '../db/schema';
import { type Page, type Principal } from '../domain/principal';
import { actorLabel } from '../domain/principal';
import { bumpUsage, utcDay } from '../domain/usage';

export type Outcome = 'ok' | 'refused' | 'error';

/** The call and its daily rollup (per tool and outcome) in one transaction. */
export async function recordToolCall(
  db: Db,
  caller: Principal,
  tool: string,
  outcome: Outcome,
  message: string | null,
) {
  const person = caller.kind === 'local' || caller.kind === 'oidc' ? caller : null;
  const at = new Date();
  await db.transaction(async (tx) => {
    await tx.insert(mcpToolCalls).values({
      at,
      via: person?.hub ? 'hub' : caller.kind,
      actor: actorLabel(caller),
      userId: person?.userId ?? null,
      tokenId: caller.kind === 'machine_token' ? caller.tokenId : (person?.hub?.tokenId ?? null),
      tool,
      outcome,
      message: message?.slice(0, 500) ?? null,
    });
    await bumpUsage(tx, [{ day: utcDay(at), kind: 'mcp_tool', key: tool, class: outcome, count: 1 }]);
  });
}

export async function listToolCalls(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(mcpToolCalls)
      .orderBy(desc(mcpToolCalls.at), desc(mcpToolCalls.id))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(mcpToolCalls),
  ]);
  return {
    calls: rows.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      via: r.via,
      actor: r.actor,
      user_id: r.userId,
      token_id: r.tokenId,
      tool: r.tool,
      outcome: r.outcome,
      message: r.message,
    })),
    pagination: pagination(page, total?.n ?? 0),
  };
}
