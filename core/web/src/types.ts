/**
 * Core's API shapes as the frontend reads them: the generated client's (core/client/core-api.d.ts, from Core's
 * OpenAPI document, which core/src/api/routes generate; `npm run core-client` refreshes it). Type-only: the
 * bundle takes nothing from it.
 */
import type { components } from '../../client/core-api';

type Schemas = components['schemas'];

/** What the engine reports for a deployment (issue 33). */
export type ObservedState = Schemas['ObservedState']['state'];

export type Role = Schemas['Role'];
export const ROLES: Role[] = ['admin', 'readonly'];

export type Pagination = Schemas['Pagination'];
export type AuthConfig = Schemas['AuthConfig'];
/** A session; `device_token` only from a sign-in with a password: kept per username and sent with the next one. */
export type LoginResponse = Schemas['Session'] & Partial<Pick<Schemas['LoginSession'], 'device_token'>>;
export type Me = Schemas['Me'];
/** A secret as listed: its value is never sent to the frontend's list. */
export type Secret = Schemas['SecretInfo'];
export type User = Schemas['User'];
export type MachineToken = Schemas['MachineToken'];
export type AuditRecord = Schemas['AuditRecord'];
export type ActivityEntry = Schemas['ActivityEntry'];
export type Overview = Schemas['Overview'];
export type OidcSettings = Schemas['OidcSettings'];
export type Settings = Schemas['Settings'];
/** An OIDC person an admin removed: their sign-ins are refused until re-admitted. */
export type BlockedIdentity = Schemas['BlockedIdentity'];
