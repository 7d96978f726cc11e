/** One typed function per Core endpoint the frontend uses. */
import { api } from './session';
import type {
  ActivityEntry,
  AuditRecord,
  BlockedIdentity,
  MachineToken,
  Me,
  OidcSettings,
  Overview,
  Pagination,
  Role,
  Secret,
  Settings,
  User,
} from './types';

const enc = encodeURIComponent;
type Page = { page?: number; limit?: number };

export const core = {
  me: () => api<Me>('GET', '/auth/me'),

  secrets: () => api<{ secrets: Secret[] }>('GET', '/secrets'),
  secretValue: (name: string) => api<Secret & { value: string }>('GET', `/secrets/${enc(name)}`),
  putSecret: (name: string, body: { value: string; description?: string }) =>
    api<Secret>('PUT', `/secrets/${enc(name)}`, { body }),
  deleteSecret: (name: string) => api<void>('DELETE', `/secrets/${enc(name)}`),

  users: (q: Page) => api<{ users: User[]; pagination: Pagination }>('GET', '/users', { query: q }),
  createUser: (body: { email: string; password: string; role: Role; name?: string }) =>
    api<User>('POST', '/users', { body }),
  updateUser: (id: string, body: Partial<{ email: string; name: string; role: Role; password: string }>) =>
    api<User>('PUT', `/users/${enc(id)}`, { body }),
  deleteUser: (id: string) => api<void>('DELETE', `/users/${enc(id)}`),
  blockedIdentities: () => api<{ blocked: BlockedIdentity[] }>('GET', '/blocked-identities'),
  readmit: (id: string) => api<void>('DELETE', `/blocked-identities/${enc(id)}`),

  tokens: (q: Page) => api<{ tokens: MachineToken[]; pagination: Pagination }>('GET', '/tokens', { query: q }),
  createToken: (body: { name: string; role: Role; expires_in_days: number | null }) =>
    api<MachineToken & { token: string }>('POST', '/tokens', { body }),
  reissueToken: (id: string) => api<MachineToken & { token: string }>('POST', `/tokens/${enc(id)}/reissue`),
  revokeToken: (id: string) => api<void>('DELETE', `/tokens/${enc(id)}`),
  tokenAudit: (id: string, q: Page) =>
    api<{ records: AuditRecord[]; pagination: Pagination }>('GET', `/tokens/${enc(id)}/audit`, { query: q }),

  settings: () => api<Settings>('GET', '/settings'),
  putOidcSettings: (body: {
    issuer: string;
    client_id: string;
    audience?: string;
    scopes?: string;
    default_role?: Role;
  }) => api<OidcSettings>('PUT', '/settings/oidc', { body }),
  deleteOidcSettings: () => api<void>('DELETE', '/settings/oidc'),

  overview: (q: { days?: number }) => api<Overview>('GET', '/overview', { query: q }),
  activity: (q: Page & { actor?: string; target_type?: string; target_id?: string; action?: string }) =>
    api<{ entries: ActivityEntry[]; pagination: Pagination }>('GET', '/activity', { query: q }),
};
