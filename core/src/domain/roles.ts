/**
 * Roles are binary: admin or readonly. The legacy roles operator and viewer are refused wherever a
 * role is asked for, with a message naming the valid roles (and, for operator, that it needs admin).
 */
import { z } from 'zod';
import { ROLES, type Role } from '../config';
import { ServiceError } from './errors';

export { ROLES, type Role };

export function legacyRoleMessage(input: unknown): string {
  const valid = 'valid roles are admin and readonly';
  if (input === 'operator') return `the role operator no longer exists: what it allowed needs admin (${valid})`;
  if (input === 'viewer') return `the role viewer no longer exists: use readonly (${valid})`;
  return `unknown role ${JSON.stringify(input)}: ${valid}`;
}

export const roleSchema = z.enum(ROLES, { error: (issue) => legacyRoleMessage(issue.input) });

export function parseRole(input: unknown): Role {
  const parsed = roleSchema.safeParse(input);
  if (!parsed.success) throw new ServiceError('invalid', `role: ${legacyRoleMessage(input)}`);
  return parsed.data;
}
