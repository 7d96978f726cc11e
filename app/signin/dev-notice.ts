/** What the development provider's notice says about roles: true to the database's state, not to a fresh Hub's. */
import { superadminExists } from '@/server/api/pageData';

export async function devProviderRoleRule(): Promise<string> {
  if (await superadminExists()) {
    return (
      'A superadmin exists already, so everyone who signs in here gets the user role; a superadmin changes roles ' +
      'under Admin → Users (or list emails in HUB_SUPERADMIN_EMAILS).'
    );
  }
  return 'No superadmin exists yet: the first person to sign in becomes superadmin.';
}
