'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../_lib/errors';
import { toastUnlessInline } from '../_lib/form-errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { Badge, Button, Card, Field, Input } from '../_components/ui';

type Profile = RouterOutputs['account']['getProfile']['profile'];

export function ProfileCard({ profile }: { profile: Profile }) {
  const utils = trpc.useUtils();
  const [name, setName] = useState(profile.name);
  const update = trpc.account.updateProfile.useMutation({
    onSuccess: async () => {
      toast.success('Profile saved');
      await utils.account.getProfile.invalidate();
    },
    onError: (err) => toastUnlessInline(err, ['name']),
  });
  const errors = fieldErrors(update.error);
  const signOutEverywhere = trpc.account.signOutEverywhere.useMutation({
    // This session ends too: back to the start page, signed out.
    onSuccess: () => window.location.assign('/'),
    onError: (err) => toast.error(errorMessage(err)),
  });
  return (
    <Card title="Profile" description="Your name as your organization and the Hub's administrators see it.">
      <dl className="mb-4 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-zinc-600">Email</dt>
        <dd className="break-all">{profile.email}</dd>
        <dt className="text-zinc-600">Platform role</dt>
        <dd>
          <Badge tone={profile.role === 'user' ? 'neutral' : 'violet'}>{profile.role}</Badge>
        </dd>
      </dl>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({ name });
        }}
      >
        <Field id="profile-name" label="Name" error={errors.name} className="min-w-0 flex-1">
          <Input
            id="profile-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? 'profile-name-error' : undefined}
            maxLength={100}
            autoComplete="name"
          />
        </Field>
        <Button type="submit" disabled={update.isPending || name.trim() === profile.name}>
          {update.isPending ? 'Saving…' : 'Save'}
        </Button>
      </form>
      <div className="mt-6 flex flex-wrap items-center justify-between gap-2 border-t border-zinc-200 pt-4 text-sm">
        <span className="text-zinc-600">
          Ends every session and Hub JWT of yours, in every browser and script (this one too).
        </span>
        <Button type="button" onClick={() => signOutEverywhere.mutate({})} disabled={signOutEverywhere.isPending}>
          {signOutEverywhere.isPending ? 'Signing out…' : 'Sign out everywhere'}
        </Button>
      </div>
    </Card>
  );
}
