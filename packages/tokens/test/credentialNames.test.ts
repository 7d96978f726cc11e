import { describe, expect, it } from 'vitest';
import { isCredentialName } from '../src/credentialNames';

describe('isCredentialName', () => {
  it('marks a name with a credential word part, in any case and as a plural', () => {
    for (const name of [
      'ADMIN_PASSWORD',
      'POSTGRES_PASSWORD',
      'apiKey',
      'API_KEY',
      'db-token',
      'GITHUB_TOKEN',
      'AWS_CREDENTIALS',
      'client.secret',
      'SECRETS',
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
  });

  it('leaves names that only contain such letters', () => {
    for (const name of ['KEYBOARD_LAYOUT', 'MONKEY', 'PASSWORDLESS_LOGIN', 'TZ', 'PWD', 'PASSWD', 'MAX_BATCH_SIZE']) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });
});
