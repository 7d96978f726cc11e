import { createTRPCRouter } from '../../trpc';
import { acceptInvitationProcedure } from './acceptInvitation';
import { acknowledgeUrlChangesProcedure } from './acknowledgeUrlChanges';
import { createInvitationProcedure } from './createInvitation';
import { declineInvitationProcedure } from './declineInvitation';
import { leaveOrganizationProcedure } from './leaveOrganization';
import { listInvitationsProcedure } from './listInvitations';
import { listReceivedInvitationsProcedure } from './listReceivedInvitations';
import { revokeInvitationProcedure } from './revokeInvitation';
import { createApiKeyProcedure } from './createApiKey';
import { createOrganizationProcedure } from './createOrganization';
import { fleetProcedure } from './fleet';
import { getOrganizationProcedure } from './getOrganization';
import { getProfileProcedure } from './getProfile';
import { listApiKeysProcedure } from './listApiKeys';
import { listApiTokensProcedure } from './listApiTokens';
import { listMembersProcedure } from './listMembers';
import { reissueApiKeyProcedure } from './reissueApiKey';
import { removeMemberProcedure } from './removeMember';
import { revokeApiKeyProcedure } from './revokeApiKey';
import { revokeApiTokenProcedure } from './revokeApiToken';
import { updateMemberProcedure } from './updateMember';
import { signOutEverywhereProcedure } from './signOutEverywhere';
import { updateProfileProcedure } from './updateProfile';

/** /api/v1/account/*: the signed-in user's organization, profile, API tokens, instance keys, members and invitations. */
export const accountRouter = createTRPCRouter({
  getOrganization: getOrganizationProcedure,
  fleet: fleetProcedure,
  acknowledgeUrlChanges: acknowledgeUrlChangesProcedure,
  createOrganization: createOrganizationProcedure,
  getProfile: getProfileProcedure,
  updateProfile: updateProfileProcedure,
  signOutEverywhere: signOutEverywhereProcedure,
  listApiTokens: listApiTokensProcedure,
  revokeApiToken: revokeApiTokenProcedure,
  listApiKeys: listApiKeysProcedure,
  createApiKey: createApiKeyProcedure,
  reissueApiKey: reissueApiKeyProcedure,
  revokeApiKey: revokeApiKeyProcedure,
  listMembers: listMembersProcedure,
  updateMember: updateMemberProcedure,
  removeMember: removeMemberProcedure,
  leaveOrganization: leaveOrganizationProcedure,
  listInvitations: listInvitationsProcedure,
  createInvitation: createInvitationProcedure,
  revokeInvitation: revokeInvitationProcedure,
  listReceivedInvitations: listReceivedInvitationsProcedure,
  acceptInvitation: acceptInvitationProcedure,
  declineInvitation: declineInvitationProcedure,
});
