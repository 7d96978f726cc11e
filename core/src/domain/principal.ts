/** Who is calling: the one shape the credential resolver produces and every rule consumes. */
import type { Role } from './roles';

export type Principal =
  /** `hub`: the person came through the Hub's /mcp (its assertion names them; token_id is their Hub PAT). */
  | { kind: 'local' | 'oidc'; role: Role; userId: string; email: string; name: string; hub?: { tokenId: string } }
  | { kind: 'temporary_admin'; role: 'admin'; username: string }
  | { kind: 'machine_token'; role: Role; tokenId: string; name: string };

/** How a caller's actions are recorded (created_by, logs). The temporary admin under its username. */
export function actorLabel(p: Principal): string {
  switch (p.kind) {
    case 'local':
    case 'oidc':
      return p.email;
    case 'temporary_admin':
      return p.username;
    case 'machine_token':
      return `token:${p.name}`;
  }
}

export interface Page {
  page: number;
  limit: number;
}
