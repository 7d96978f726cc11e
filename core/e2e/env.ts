/** Fixed credentials of the end-to-end run (a throw-away Core in a temporary directory). */
export const E2E = {
  tempAdmin: { username: 'setup-admin', password: 'temporary-admin-password-e2e' },
  admin: { username: 'ada@example.test', password: 'ada-admin-password-1', role: 'admin', name: 'Ada Admin' },
  readonly: {
    username: 'rita@example.test',
    password: 'rita-readonly-password',
    role: 'readonly',
    name: 'Rita Reader',
  },
  secret: { name: 'registry-password', value: 'hunter2-e2e-secret-value' },
  get url() {
    return fromSetup('CORE_E2E_URL');
  },
  get oidcIssuer() {
    return fromSetup('CORE_E2E_OIDC_ISSUER');
  },
};

function fromSetup(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset: run through core/playwright.config.ts (its global setup starts Core)`);
  return value;
}
