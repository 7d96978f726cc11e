'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../_lib/errors';
import { toastUnlessInline } from '../_lib/form-errors';
import { trpc } from '../_lib/trpc';
import { Badge, Button, Card, ErrorState, Field, Input, Loading } from '../_components/ui';

export function slugify(name: string) {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
}

export function OrganizationCard() {
  const org = trpc.account.getOrganization.useQuery({});
  if (org.isPending)
    return (
      <Card title="Organization">
        <Loading rows={3} />
      </Card>
    );
  if (org.isError)
    return (
      <Card title="Organization">
        <ErrorState message={errorMessage(org.error)} />
      </Card>
    );
  const o = org.data.organization;
  if (!o) return <CreateOrganization />;
  return (
    <Card title="Organization" description="Your instance keys and members belong to it.">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="text-zinc-600">Name</dt>
        <dd className="font-medium" data-testid="org-name">
          {o.name}
        </dd>
        <dt className="text-zinc-600">Slug</dt>
        <dd className="font-mono">{o.slug}</dd>
        <dt className="text-zinc-600">Tier</dt>
        <dd>
          <Badge tone="blue">{o.tier}</Badge>
        </dd>
        <dt className="text-zinc-600">Status</dt>
        <dd>
          <Badge tone={o.status === 'active' ? 'green' : 'red'}>{o.status}</Badge>
        </dd>
        <dt className="text-zinc-600">Your role</dt>
        <dd>{o.role === 'admin' ? 'Organization admin' : 'Member'}</dd>
      </dl>
      {o.status !== 'active' ? (
        <p className="mt-3 text-sm text-red-800">
          This organization is suspended: its instance keys are refused until a platform admin reactivates it.
        </p>
      ) : null}
    </Card>
  );
}

function CreateOrganization() {
  const utils = trpc.useUtils();
  const router = useRouter();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const create = trpc.account.createOrganization.useMutation({
    onSuccess: async (data) => {
      toast.success(`Organization ${data.organization.name} created; you are its admin`);
      await utils.invalidate();
      router.refresh();
    },
    // A taken slug is shown beside the slug field, like every field's own message: no toast as well.
    onError: (err) => {
      if ((err as { data?: { code?: string } | null }).data?.code === 'CONFLICT') return;
      toastUnlessInline(err, ['name', 'slug']);
    },
  });
  const errors = fieldErrors(create.error);
  const conflict = create.error?.data?.code === 'CONFLICT' ? create.error.message : undefined;
  return (
    <Card
      title="Create your organization"
      description="You do not belong to an organization yet. Create one to get instance keys; you become its admin (free tier)."
    >
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name: name.trim(), slug });
        }}
      >
        <Field id="org-name" label="Organization name" error={errors.name}>
          <Input
            id="org-name"
            value={name}
            required
            maxLength={100}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? 'org-name-error' : undefined}
            onChange={(e) => {
              setName(e.target.value);
              if (!slugEdited) setSlug(slugify(e.target.value));
            }}
          />
        </Field>
        <Field
          id="org-slug"
          label="Slug"
          hint="3 to 63 lowercase letters, digits and hyphens; used in URLs."
          error={errors.slug ?? conflict}
        >
          <Input
            id="org-slug"
            value={slug}
            required
            aria-invalid={errors.slug || conflict ? true : undefined}
            aria-describedby={errors.slug || conflict ? 'org-slug-error' : 'org-slug-hint'}
            onChange={(e) => {
              setSlug(e.target.value);
              setSlugEdited(true);
            }}
            className="font-mono"
          />
        </Field>
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create organization'}
        </Button>
      </form>
    </Card>
  );
}
