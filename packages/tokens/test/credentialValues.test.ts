import { describe, expect, it } from 'vitest';
import { findCredentialInValue } from '../src/credentialNames';
import { issueSecret } from '../src/index';

describe('findCredentialInValue', () => {
  it('finds a password in the userinfo of a URL, whatever the scheme', () => {
    for (const value of [
      'postgres://app:S3cret@db:5432/app',
      'jdbc:mysql://root:hunter2@mysql/app?useSSL=false',
      'redis://:cachepass@redis:6379/0',
      'mongodb+srv://user:p%40ss@cluster.example.net/db',
      'amqp://guest:guest@rabbit',
      'see https://ops:pw@internal.example for the dashboard',
    ]) {
      expect(findCredentialInValue(value), value).toEqual({
        kind: 'url_password',
        description: 'a password in a URL (user:password@host)',
      });
    }
  });

  it('finds password, pwd, secret, token, api_key and apikey parameters in any case, with a prefix word too', () => {
    const cases: [string, string][] = [
      ['jdbc:postgresql://db/sonar?password=JdbcS3cret', 'password'],
      ['jdbc:postgresql://db/sonar?user=sonar&PASSWORD=JdbcS3cret&ssl=true', 'PASSWORD'],
      ['Server=db;Database=app;Uid=sa;Pwd=Sql$erver1;', 'Pwd'],
      ['https://api.example/v1?secret=abc', 'secret'],
      ['wss://push.example/socket?token=eyJhbGciOi', 'token'],
      ['https://maps.example/js?api_key=AIzaSy123', 'api_key'],
      ['https://maps.example/js?apikey=AIzaSy123', 'apikey'],
      ['https://maps.example/js?api-key=AIzaSy123', 'api-key'],
      ['--db-password=letmein --verbose', 'db-password'],
      ['oauth client_secret=xyz&client_id=app', 'client_secret'],
      ['password = spaced out', 'password'],
    ];
    for (const [value, key] of cases) {
      expect(findCredentialInValue(value), value).toEqual({ kind: 'parameter', description: `the parameter ${key}=` });
    }
    expect(findCredentialInValue('{"spring.datasource.password":"s3cret","port":5432}')).toEqual({
      kind: 'parameter',
      description: 'the JSON field "spring.datasource.password"',
    });
  });

  it('finds them percent-encoded too, in a longer key word (PGPASSWORD=), and with tabs around the =', () => {
    const cases: [string, string][] = [
      ['jdbc:postgresql://db/sonar?password%3DJdbcS3cret', 'parameter'],
      ['jdbc%3Apostgresql%3A%2F%2Fdb%2Fsonar%3Fpassword%3DJdbcS3cret', 'parameter'],
      ['https://sso.example/cb?next=postgres%253A%252F%252Fapp%253AS3cret%2540db', 'url_password'],
      ['postgres%3A%2F%2Fapp%3AS3cret%40db%2Fapp', 'url_password'],
      ['PGPASSWORD=S3cret psql -h db', 'parameter'],
      ['MYSQLPASSWD=S3cret', 'parameter'],
      ['password\t=\tS3cret', 'parameter'],
    ];
    for (const [value, kind] of cases) expect(findCredentialInValue(value)?.kind, value).toBe(kind);
    // An encoded reference is still a reference; an encoded value without a credential is nothing.
    for (const value of ['x?password=%24%7BDB_PASSWORD%7D', 'https://example.com/a%20b?q=%3D', '100%', '%zz%3'])
      expect(findCredentialInValue(value), value).toBeNull();
  });

  it('finds password, secret, token and api_key settings in a YAML, INI or env-file shaped value, one per line', () => {
    const cases: [string, string][] = [
      ['password: hunter2', 'password'],
      ['database:\n  host: db\n  password: YamlS3cret\n  port: 5432\n', 'password'],
      ['# app settings\n---\nauth:\n  client_secret: "quoted value"\n', 'client_secret'],
      ["[github]\nuser = bot\ntoken: 'Ini5ecret'\n", 'token'],
      ['export API_KEY: AIzaSy123 # the maps key\n', 'API_KEY'],
      ['services:\n  - name: a\n    api-key: k3y\n', 'api-key'],
      ['"db_password":   spaced  \r\nuser: app', 'db_password'],
      ['tls:\n  secret: |\n    -----not a key, still a secret\n', 'secret'],
      ['smtp:\n  password: correct horse battery staple\n  user: mail', 'password'],
    ];
    for (const [value, key] of cases) {
      expect(findCredentialInValue(value), value).toEqual({ kind: 'parameter', description: `the setting ${key}:` });
    }
  });

  it('leaves prose with the word password, references, empty and null settings, and keys that only contain the word', () => {
    for (const value of [
      'Reset your password: click the link in the mail',
      'Password: ask the administrator',
      'The admin sets the password.\npassword: hunter2',
      'Note: the password is in the vault',
      'password: ${SECRET_REF}',
      'password: $DB_PASSWORD',
      'token: {{ api_token }}',
      'password: *db_password',
      'password:',
      'password: ""',
      "secret: ''",
      'password: ~',
      'token: null',
      'password: # set by the operator',
      'secret:\n  secretName: app-tls\n  existingSecret: app-secret\n',
      'password_file: /run/secrets/db\ntoken_url: https://sso.example/token',
      'password:hunter2 is not YAML',
      'https://example.com:8443/path',
    ]) {
      expect(findCredentialInValue(value), value).toBeNull();
    }
  });

  it('finds a token that is the whole userinfo of a URL, and leaves user names there', () => {
    const ghp = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`;
    for (const value of [
      `https://${ghp}@github.com/org/repo.git`,
      'https://glpat-AbCdEfGhIjKlMnOpQrSt@gitlab.example/group/app.git',
      'git clone https://0123456789abcdef0123456789abcdef01234567@git.example/app',
      'https://vz4mw6c2tq3k7xnqg5p2h6e4v3b7a5rj2y3zt6d4w7f5c2h3k6na@dev.azure.com/org',
      `https%3A%2F%2F${ghp}%40github.com`,
    ]) {
      expect(findCredentialInValue(value), value).toEqual({
        kind: 'url_token',
        description: 'a token in a URL (token@host)',
      });
    }
    for (const value of [
      'https://git@github.com/org/repo.git',
      'ssh://git@github.com/org/repo.git',
      'https://TOKEN@host/',
      'https://deploy-bot-01@git.example/app',
      'https://jenkins-agent-build-2024@ci.example/',
      'https://firstname.lastname2024@git.example/',
      'https://${GITHUB_TOKEN}@github.com/org/repo.git',
      'https://$GITHUB_TOKEN@github.com/org/repo.git',
      'https://ghp_short@github.com',
    ]) {
      expect(findCredentialInValue(value), value).toBeNull();
    }
  });

  it('finds a private-key block of any kind', () => {
    for (const header of ['PRIVATE KEY', 'RSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'ENCRYPTED PRIVATE KEY']) {
      const value = `-----BEGIN ${header}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END ${header}-----\n`;
      expect(findCredentialInValue(value)?.kind, header).toBe('private_key');
    }
    expect(findCredentialInValue('-----BEGIN PGP PRIVATE KEY BLOCK-----\nxyz')?.kind).toBe('private_key');
  });

  it("finds the project's own tokens, alone or inside a longer value, by their shape", () => {
    const pat = issueSecret('svp_').secret;
    expect(findCredentialInValue(pat)).toEqual({ kind: 'token', description: 'a Hub personal access token (svp_…)' });
    expect(findCredentialInValue(`Bearer ${issueSecret('svm_').secret}`)?.description).toBe(
      'a Core machine token (svm_…)',
    );
    expect(findCredentialInValue(`key:${issueSecret('svh_').secret};`)?.description).toBe('a Hub instance key (svh_…)');
  });

  it('leaves values that only look alike: no password, empty parts, references to other variables, public keys', () => {
    for (const value of [
      'jdbc:postgresql://db:5432/sonar',
      'postgres://app@db/app',
      'postgres://app:@db/app',
      'postgres://app:${DB_PASSWORD}@db/app',
      'postgres://app:$DB_PASSWORD@db/app',
      'http://host:8080/path@version',
      'https://example.com/login?user=me&next=/home',
      'password=',
      'password=${ADMIN_PASSWORD}',
      'token={{ api_token }}',
      'max_tokens=4096',
      'keyboard=us',
      'PASSWORDLESS=true',
      'mypassword=x'.replace('x', ''),
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
      'svp_tooShort',
      `xsvp_${'a'.repeat(38)}`,
      'Europe/Berlin',
      '{"password":""}',
      '',
    ]) {
      expect(findCredentialInValue(value), value).toBeNull();
    }
  });

  it('stays linear on long hostile values (no backtracking blow-up)', () => {
    const hostile = [
      'a_'.repeat(30_000),
      'a'.repeat(60_000),
      '='.repeat(60_000),
      '://'.repeat(20_000),
      '"'.repeat(60_000),
      'password: |\n'.repeat(5_000),
      `${' '.repeat(60_000)}x`,
      `a: b\n${'-'.repeat(60_000)}`,
      `https://${'a1'.repeat(30_000)}`,
    ];
    const started = performance.now();
    for (const value of hostile) expect(findCredentialInValue(value)).toBeNull();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
