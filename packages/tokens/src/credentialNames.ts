/**
 * Which environment variable names mark a credential: Core takes only a secret binding for them (never a literal
 * value), and the Hub's template page writes a binding for them in the commands it shows. One rule for both.
 */

/** Word parts that mark a variable as a credential (plural too): ADMIN_PASSWORD, apiKey, db-token. */
const CREDENTIAL_PARTS = new Set(['password', 'secret', 'token', 'key', 'credential']);

/** True when a part of the name (split at _ - . and at lower→upper case changes) is a credential word. */
export function isCredentialName(variable: string): boolean {
  return variable
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[^A-Za-z0-9]+/)
    .some((part) => {
      const p = part.toLowerCase();
      return CREDENTIAL_PARTS.has(p) || (p.endsWith('s') && CREDENTIAL_PARTS.has(p.slice(0, -1)));
    });
}

/** Values that carry a credential whatever their name (a password in a JDBC URL): credentialValues.ts. */
export { findCredentialInValue, type CredentialFinding } from './credentialValues';
