'use server';
import { OIDC_PROVIDER_ID, signIn, signOut } from '@/server/auth/nextauth';

/** Only paths of this site: never an open redirect. */
function safePath(value: FormDataEntryValue | null): string {
  const path = typeof value === 'string' ? value : '';
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\') ? path : '/account';
}

export async function signInAction(formData: FormData) {
  await signIn(OIDC_PROVIDER_ID, { redirectTo: safePath(formData.get('callbackUrl')) });
}

export async function signOutAction() {
  await signOut({ redirectTo: '/' });
}
