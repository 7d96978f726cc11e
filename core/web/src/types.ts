/** Core's API shapes, as agreed in the Core contract (team/CORE-CONTRACT.md). */
import type { OidcClientConfig } from './oidc';

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
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: { id: string | null; email: string; name: string; role: Role; kind: 'local' | 'temporary_admin' };
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

export interface OidcSettings {
  source: 'environment' | 'settings' | 'none';
  issuer: string | null;
  client_id: string | null;
  audience: string | null;
  scopes: string | null;
  default_role: Role;
  admin_groups: string[];
}

export interface Settings {
  oidc: OidcSettings;
  temporary_admin: { enabled: boolean };
  version: string;
}
