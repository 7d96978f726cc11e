'use client';
import { trpc } from '../_lib/trpc';
import { errorMessage } from '../_lib/errors';
import { ErrorState, Loading } from '../_components/ui';
import { FleetView } from '../_components/fleet/fleet-view';
import { ApiAccessCard } from './api-access-card';
import { InvitationsCard } from './invitations-card';
import { KeysCard } from './keys-card';
import { MembersCard } from './members-card';
import { OrganizationCard } from './organization-card';
import { ProfileCard } from './profile-card';

export function AccountView() {
  const profile = trpc.account.getProfile.useQuery({});
  if (profile.isPending) return <Loading label="Loading your account…" rows={6} />;
  if (profile.isError)
    return <ErrorState title="Your account could not be loaded" message={errorMessage(profile.error)} />;
  const org = profile.data.profile.organization;
  const isOrgAdmin = org?.role === 'admin';
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <ProfileCard profile={profile.data.profile} />
      <OrganizationCard />
      <div className="lg:col-span-2 empty:hidden">
        <InvitationsCard email={profile.data.profile.email} currentOrgName={org?.name ?? null} />
      </div>
      {org ? (
        <>
          <div className="lg:col-span-2">
            <KeysCard isOrgAdmin={isOrgAdmin} />
          </div>
          {isOrgAdmin ? (
            <section className="lg:col-span-2" aria-labelledby="fleet-heading">
              <h2 id="fleet-heading" className="mb-3 text-lg font-semibold text-zinc-900">
                Your instances
              </h2>
              <FleetView scope="org" />
            </section>
          ) : null}
          <div className="lg:col-span-2" data-testid="members-section">
            <MembersCard isOrgAdmin={isOrgAdmin} selfId={profile.data.profile.id} orgName={org.name} />
          </div>
        </>
      ) : null}
      <div className="lg:col-span-2">
        <ApiAccessCard />
      </div>
    </div>
  );
}
