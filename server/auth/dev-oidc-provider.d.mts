export declare const DEV_CLIENT_ID: string;
export declare function devSubjectFor(email: string): string;

export interface DevOidcProvider {
  issuer: string;
  port: number;
  clientId: string;
  clientSecret: string;
  /** OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, HUB_DEV_OIDC_PROVIDER for the Hub process. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export declare function startDevOidcProvider(options: {
  port?: number;
  host?: string;
  redirectUris: string[];
  clientSecret?: string;
  quiet?: boolean;
}): Promise<DevOidcProvider>;
