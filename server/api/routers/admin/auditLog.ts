import { z } from 'zod';
import { listAuditLog } from '../../../domain/audit';
import { adminProcedure } from '../../trpc';
import { AuditEntrySchema, toAuditEntry } from '../../schemas/admin';
import { PaginationSchema, isoDateTime, pageInput, pagination, resolvePage } from '../../schemas/query';

const idLike = () => z.string().trim().min(1).max(100);

export const auditLogProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/audit-log',
      operationId: 'listAuditRecords',
      tags: ['admin'],
      protect: true,
      summary:
        'Audit records with the names of actors and targets, newest first (paginated; filter by actor, target, action, organization, time)',
    },
  })
  .input(
    z.object({
      actor_id: idLike().optional().describe('User id or instance key id'),
      actor_type: z.enum(['user', 'instance', 'system']).optional(),
      actor: z.string().trim().min(1).max(200).optional().describe("The actor's id, or part of its name or email"),
      target_id: idLike().optional(),
      target: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe("The target's id, or part of its name, slug or email (also as it was recorded, for deleted targets)"),
      target_type: z
        .string()
        .trim()
        .min(1)
        .max(50)
        .optional()
        .describe('e.g. api_key, user, organization, template, category, access_grant'),
      action: z.string().trim().min(1).max(100).optional().describe('e.g. api_key.revoke'),
      org_id: z.uuid().optional(),
      since: isoDateTime().optional(),
      until: isoDateTime().optional(),
      ...pageInput,
    }),
  )
  .output(z.object({ entries: z.array(AuditEntrySchema), pagination: PaginationSchema }))
  .query(async ({ input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listAuditLog(
      {
        actorId: input.actor_id,
        actorType: input.actor_type,
        actor: input.actor,
        targetId: input.target_id,
        targetType: input.target_type,
        target: input.target,
        action: input.action,
        orgId: input.org_id,
        since: input.since ? new Date(input.since) : undefined,
        until: input.until ? new Date(input.until) : undefined,
      },
      page,
    );
    return { entries: rows.map(toAuditEntry), pagination: pagination(page, total) };
  });
