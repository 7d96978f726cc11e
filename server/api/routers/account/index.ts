import { createTRPCRouter } from '../../trpc';
import { addMemberProcedure } from './addMember';
import { createApiKeyProcedure } from './createApiKey';
import { createOrganizationProcedure } from './createOrganization';
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

/** /api/v1/account/*: the signed-in user's organization, profile, API tokens, instance keys and members. */
export const accountRouter = createTRPCRouter({
  getOrganization: getOrganizationProcedure,
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
  addMember: addMemberProcedure,
  updateMember: updateMemberProcedure,
  removeMember: removeMemberProcedure,
});
