/**
 * Core's API shapes as the frontend reads them. The source of truth is Core's OpenAPI document
 * (GET /api/v1/openapi.json, generated from core/src/api/routes).
 */
import type { OidcClientConfig } from './oidc';

/** What the engine reports for a deployment (issue 33); the backend's schema is core/src/api/routes/deployments/schemas.ts. */
export type ObservedState =
  | 'pending'
  | 'pulling'
  | 'starting'
  | 'running'
  | 'restarting'
  | 'exited'
  | 'failed'
  | 'unschedulable'
  | 'template_missing'
  | 'unknown';

export type Role = 'admin' | 'readonly';
export const ROLES: Role[] = ['admin', 'readonly'];

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface AuthConfig {
  oidc: OidcClientConfig | null;
  local_login: boolean;
}

export interface LoginResponse {
  access_token: string;
  /** Absent for the web frontend: Core keeps it in an HttpOnly cookie (X-Core-Session: cookie). */
  refresh_token?: string;
  token_type: 'Bearer';
  expires_in: number;
  user: { id: string | null; email: string; name: string; role: Role; kind: 'local' | 'temporary_admin' };
  /** Only from a sign-in with a password: kept per username and sent with the next one (session.ts). */
  device_token?: string;
}

export interface Me {
  kind: 'local' | 'oidc' | 'temporary_admin' | 'machine_token';
  role: Role;
  temporary: boolean;
  user: { id: string | null; email: string; name: string } | null;
  token_id: string | null;
}

export interface Secret {
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  kind: 'local' | 'oidc';
  created_at: string;
}

export interface MachineToken {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  created_by: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface AuditRecord {
  id: string;
  token_id: string;
  method: string;
  path: string;
  status: number;
  at: string;
}

export interface ActivityEntry {
  id: string;
  at: string;
  actor: { kind: string; id: string; label: string };
  via: string;
  action: string;
  target: { type: string; id: string; name: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface Overview {
  days: number;
  hub:
    | { configured: false }
    | {
        configured: true;
        source: 'environment' | 'settings';
        hub_url: string;
        organization: { id: string; name: string; slug: string } | null;
        connected: boolean;
        key_refused: boolean;
        last_sync_at: string | null;
        last_error: string | null;
        last_error_at: string | null;
        template_count: number;
      };
  catalog: { templates: number };
  deployments: {
    total: number;
    by_status: { ok: number; template_missing: number };
    by_observed_state: Record<ObservedState, number>;
  };
  /** The container engine as Core sees it (issue 33). */
  engine: { state: 'up' | 'down' | 'none'; since: string; description: string; error: string | null };
  machine_token_requests: {
    days: { day: string; '2xx': number; '3xx': number; '4xx': number; '5xx': number }[];
    by_token: { token_id: string; name: string; total: number; errors: number }[];
  };
  mcp_calls: {
    days: { day: string; ok: number; refused: number; error: number }[];
    by_tool: { tool: string; ok: number; refused: number; error: number; total: number }[];
  };
  recent_activity: ActivityEntry[];
}

export interface OidcSettings {
  source: 'environment' | 'settings' | 'none';
  issuer: string | null;
  client_id: string | null;
  audience: string | null;
  scopes: string | null;
  default_role: Role;
  admin_groups: string[];
  token_policy: 'jwt_audience' | 'introspection' | 'userinfo' | 'jwt_only';
  token_policy_description: string;
  accept_userinfo_tokens: boolean;
  introspection_client_id: string | null;
}

export interface Settings {
  oidc: OidcSettings;
  temporary_admin: { enabled: boolean };
  version: string;
}

/** An OIDC person an admin removed: their sign-ins are refused until re-admitted. */
export interface BlockedIdentity {
  id: string;
  issuer: string;
  subject: string;
  email: string;
  blocked_by: string;
  blocked_at: string;
}
