/**
 * The shape of the project's tokens, without node: imports (the browser and the credential-value detector use it):
 * prefix + 32 random base62 characters + a 6-character base62 checksum.
 */

/** svh_: the Hub's instance key; svp_: the Hub's personal access token; svm_: Core's machine token. */
export const SECRET_KINDS = ['svh_', 'svp_', 'svm_'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];
export const RANDOM_LENGTH = 32;
export const CHECKSUM_LENGTH = 6;
