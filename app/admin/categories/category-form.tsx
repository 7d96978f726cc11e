'use client';
import { useState } from 'react';
import { errorMessage, fieldErrors } from '../../_lib/errors';
import type { RouterOutputs } from '../../_lib/trpc';
import { Button, Checkbox, ErrorState, Field, Input } from '../../_components/ui';
import { slugify } from '../../account/organization-card';

type Category = RouterOutputs['admin']['listCategories']['categories'][number];
export interface CategoryValues {
  name: string;
  slug: string;
  description: string;
  icon: string;
  /** Left out for a new category without one: the server places it last. */
  sort_order?: number;
  is_private: boolean;
}

export function CategoryForm({
  category,
  onSubmit,
  pending,
  error,
  submitLabel,
}: {
  category?: Category;
  onSubmit: (v: CategoryValues) => void;
  pending: boolean;
  error: unknown;
  submitLabel: string;
}) {
  const [v, setV] = useState({
    name: category?.name ?? '',
    slug: category?.slug ?? '',
    description: category?.description ?? '',
    icon: category?.icon ?? '',
    sort_order: category ? String(category.sort_order) : '',
    is_private: category?.is_private ?? false,
  });
  const [slugEdited, setSlugEdited] = useState(category !== undefined);
  const errors = fieldErrors(error);
  const conflict =
    (error as { data?: { code?: string } } | null)?.data?.code === 'CONFLICT'
      ? errorMessage(error).replace(/^slug:\s*/, '')
      : undefined;
  const unplaced = error && Object.keys(errors).length === 0 && !conflict ? errorMessage(error) : undefined;
  const p = category ? `cat-${category.id.slice(0, 8)}` : 'cat-new';
  return (
    <form
      noValidate
      className="grid grid-cols-1 gap-3 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        const sortOrder = v.sort_order.trim() === '' ? (category ? Number.NaN : undefined) : Number(v.sort_order);
        onSubmit({
          name: v.name,
          slug: v.slug,
          description: v.description,
          icon: v.icon,
          ...(sortOrder === undefined ? {} : { sort_order: sortOrder }),
          is_private: v.is_private,
        });
      }}
    >
      {unplaced ? (
        <div className="sm:col-span-2">
          <ErrorState title="Not saved" message={unplaced} />
        </div>
      ) : null}
      <Field id={`${p}-name`} label="Name" error={errors.name}>
        <Input
          id={`${p}-name`}
          value={v.name}
          aria-invalid={errors.name ? true : undefined}
          onChange={(e) =>
            setV({ ...v, name: e.target.value, slug: slugEdited ? v.slug : slugify(e.target.value).slice(0, 100) })
          }
        />
      </Field>
      <Field id={`${p}-slug`} label="Slug" error={errors.slug ?? conflict}>
        <Input
          id={`${p}-slug`}
          value={v.slug}
          className="font-mono"
          aria-invalid={errors.slug || conflict ? true : undefined}
          onChange={(e) => {
            setSlugEdited(true);
            setV({ ...v, slug: e.target.value });
          }}
        />
      </Field>
      <Field id={`${p}-description`} label="Description" error={errors.description} className="sm:col-span-2">
        <Input
          id={`${p}-description`}
          value={v.description}
          aria-invalid={errors.description ? true : undefined}
          onChange={(e) => setV({ ...v, description: e.target.value })}
        />
      </Field>
      <Field id={`${p}-icon`} label="Icon" hint="An icon name shown by Core, e.g. database" error={errors.icon}>
        <Input
          id={`${p}-icon`}
          value={v.icon}
          aria-invalid={errors.icon ? true : undefined}
          onChange={(e) => setV({ ...v, icon: e.target.value })}
        />
      </Field>
      <Field
        id={`${p}-sort`}
        label="Sort order"
        hint={category ? 'Lower comes first' : 'Lower comes first; leave empty to place it last'}
        error={errors.sort_order}
      >
        <Input
          id={`${p}-sort`}
          type="number"
          value={v.sort_order}
          aria-invalid={errors.sort_order ? true : undefined}
          onChange={(e) => setV({ ...v, sort_order: e.target.value })}
        />
      </Field>
      <div className="sm:col-span-2">
        <Checkbox
          id={`${p}-private`}
          label="Private"
          hint="Only platform admins and organizations holding an access grant see its templates."
          checked={v.is_private}
          onChange={(e) => setV({ ...v, is_private: e.target.checked })}
        />
      </div>
      <div className="sm:col-span-2">
        <Button type="submit" disabled={pending}>
          {pending ? 'Saving…' : submitLabel}
        </Button>
      </div>
    </form>
  );
}
