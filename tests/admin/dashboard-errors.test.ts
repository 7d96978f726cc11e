/**
 * The dashboard's error messages are written for people: the real validation errors of real procedures
 * (called through tRPC's server-side caller and through REST) come out as plain sentences naming the
 * field in words, never as field paths or zod's wording; forms get each field's own message, once.
 */
import { describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { errorMessage, fieldErrors, formErrors, isFieldError } from '../../app/_lib/errors';
import { createCaller } from '../../server/api/root';
import { contextFor } from '../../server/api/trpc';
import { toHttpError } from '../../server/api/errors';
import { credentialFromHeaders, resolveCredential } from '../../server/auth/credentials';
import { api, createOrg, createUser } from '../helpers';

/** tRPC's server-side caller as a signed-in superadmin (the same credential resolver as every request). */
async function adminCaller() {
  const admin = await createUser({ role: 'superadmin' });
  const headers = new Headers({ authorization: `Bearer ${admin.token}` });
  return createCaller(contextFor(await resolveCredential(credentialFromHeaders(headers)), headers));
}

const SCHEMA_WORDS =
  /Invalid (UUID|input|email)|Too (small|big)|expected (string|number)|>=|<=|\b[a-z_]+(\.[0-9a-z_]+)*: /;

/** The error as the browser's tRPC client sees it: message and data (code, httpStatus, issues) from the error formatter. */
function asClientError(err: unknown) {
  const http = toHttpError(err);
  return {
    message: http.message,
    data: { code: http.code, httpStatus: http.status, ...(http.issues ? { issues: http.issues } : {}) },
  };
}

async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCError);
    return asClientError(err);
  }
  throw new Error('expected a refusal');
}

describe('dashboard error messages', () => {
  it('an empty category form: each field its own plain sentence, no toast text left over', async () => {
    const caller = await adminCaller();
    const err = await refusal(() => caller.admin.createCategory({ name: '', slug: '' } as never));
    expect(err.message).toMatch(/name|slug/); // the raw server message does name paths…
    const message = errorMessage(err);
    expect(message).not.toMatch(SCHEMA_WORDS); // …the person never sees them.
    expect(message).toMatch(/^Name (is required|must not be empty)\. Slug /);
    const fields = fieldErrors(err);
    expect(fields.name).toMatch(/^Name (is required|must not be empty)\.$/);
    expect(fields.slug).toMatch(/^Slug /);
    expect(fields.slug).not.toMatch(SCHEMA_WORDS);
    expect(formErrors(err, ['name', 'slug'])).toEqual({
      fields: { name: fields.name, slug: fields.slug },
      message: null,
    });
    expect(isFieldError(err, ['name', 'slug'])).toBe(true);
    // A form without a slug field shows the slug problem once, as the message.
    const withoutSlug = formErrors(err, ['name']);
    expect(withoutSlug.fields).toEqual({ name: fields.name });
    expect(withoutSlug.message).toContain(fields.slug);
    expect(withoutSlug.message).toContain('Slug may contain only lowercase letters');
  });

  it('an empty template form: "Choose a category." instead of "Invalid UUID"', async () => {
    const caller = await adminCaller();
    const err = await refusal(() =>
      caller.admin.createTemplate({ name: 'T', slug: 't-x', category_id: '', image_name: 'nginx' } as never),
    );
    expect(fieldErrors(err).category_id).toBe('Choose a category.');
    expect(errorMessage(err)).not.toMatch(SCHEMA_WORDS);
  });

  it('REST refusals and domain messages with a field prefix read as sentences', async () => {
    const user = await createUser();
    await createOrg({ admin: user });
    const res = await api('/account/invitations', {
      method: 'POST',
      token: user.token,
      body: { email: 'not-an-email', role: 'member' },
    });
    expect(res.status).toBe(400);
    const err = {
      message: res.body.message,
      data: { code: res.body.code, httpStatus: res.status, issues: res.body.issues },
    };
    expect(errorMessage(err)).toBe('Email address must be a valid email address.');
    expect(fieldErrors(err).email).toBe('Email address must be a valid email address.');
    // Without the issues attached: the one-line summary is still turned into sentences.
    expect(errorMessage({ message: res.body.message, data: { httpStatus: 400 } })).toBe(
      'Email address must be a valid email address.',
    );

    const revoked = {
      message: 'id: this instance key is revoked and cannot be re-issued; create a new key',
      data: { code: 'CONFLICT', httpStatus: 409 },
    };
    expect(errorMessage(revoked)).toBe('This instance key is revoked and cannot be re-issued; create a new key.');
    const taken = {
      message: 'slug: a category with this slug already exists',
      data: { code: 'CONFLICT', httpStatus: 409 },
    };
    expect(fieldErrors(taken)).toEqual({ slug: 'A category with this slug already exists.' });
    expect(formErrors(taken, ['slug']).message).toBeNull();
    expect(formErrors(taken, ['name']).message).toBe('A category with this slug already exists.');
  });

  it('sessions, outages and unreachable servers', () => {
    expect(errorMessage({ message: 'whatever', data: { httpStatus: 401 } })).toBe(
      'Your session has ended: sign in again.',
    );
    expect(
      errorMessage({ message: 'Internal server error', data: { httpStatus: 500, code: 'INTERNAL_SERVER_ERROR' } }),
    ).toMatch(/^Something went wrong on the server/);
    expect(errorMessage({ message: 'Failed to fetch' })).toMatch(/could not be reached/);
    expect(errorMessage(null)).toBe('Something went wrong. Try again.');
  });
});
