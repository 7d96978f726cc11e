'use server';
import { OIDC_PROVIDER_ID, signIn, signOut } from '@/server/auth/nextauth';
import { sameOriginPath } from '@/server/auth/redirects';

export async function signInAction(formData: FormData) {
  await signIn(OIDC_PROVIDER_ID, { redirectTo: sameOriginPath(formData.get('callbackUrl')) });
}

export async function signOutAction() {
  await signOut({ redirectTo: '/' });
}
