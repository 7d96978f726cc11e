'use client';
/**
 * The audit log's filter form. It is a plain GET form (works without JavaScript); with JavaScript it
 * navigates to the URL of the non-empty fields only, so the address stays short and shareable.
 */
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { buttonClass, Input, Select } from '../../_components/ui';
import { ACTIONS, actionWords, TARGET_TYPES } from './describe';
import { auditHref, type AuditParams } from './params';

const label = 'mb-1 block text-sm font-medium text-zinc-800';

export function AuditFilters({ params }: { params: AuditParams }) {
  const router = useRouter();
  const actions = Object.keys(ACTIONS).sort();
  if (params.action && !actions.includes(params.action)) actions.unshift(params.action);
  return (
    <form
      method="get"
      action="/admin/audit"
      role="search"
      aria-label="Audit log filters"
      // Remount with the URL's values after every navigation (Back, links), so the form shows the URL.
      key={auditHref(params)}
      className="grid grid-cols-2 gap-3 rounded-xl border border-zinc-200 bg-white p-4 lg:grid-cols-[1.3fr_1.3fr_1fr_1.3fr_1fr_1fr_auto] lg:items-end"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const text = (k: string) => String(form.get(k) ?? '').trim() || undefined;
        router.push(
          auditHref({
            actor: text('actor'),
            action: text('action'),
            target_type: text('target_type'),
            target: text('target'),
            from: text('from'),
            to: text('to'),
            page: 1,
          }),
        );
      }}
    >
      <div className="col-span-2 sm:col-span-1">
        <label htmlFor="audit-actor" className={label}>
          Actor
        </label>
        <Input
          id="audit-actor"
          name="actor"
          type="search"
          defaultValue={params.actor}
          placeholder="Name, email or id"
        />
      </div>
      <div className="col-span-2 sm:col-span-1">
        <label htmlFor="audit-action" className={label}>
          Action
        </label>
        <Select id="audit-action" name="action" defaultValue={params.action ?? ''}>
          <option value="">Any action</option>
          {actions.map((a) => (
            <option key={a} value={a}>
              {actionOption(a)}
            </option>
          ))}
        </Select>
      </div>
      <div>
        <label htmlFor="audit-target-type" className={label}>
          Target type
        </label>
        <Select id="audit-target-type" name="target_type" defaultValue={params.target_type ?? ''}>
          <option value="">Any</option>
          {Object.entries(TARGET_TYPES).map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </Select>
      </div>
      <div>
        <label htmlFor="audit-target" className={label}>
          Target
        </label>
        <Input
          id="audit-target"
          name="target"
          type="search"
          defaultValue={params.target}
          placeholder="Name, slug or id"
        />
      </div>
      <div>
        <label htmlFor="audit-from" className={label}>
          From
        </label>
        <Input id="audit-from" name="from" type="date" defaultValue={params.from} />
      </div>
      <div>
        <label htmlFor="audit-to" className={label}>
          To
        </label>
        <Input id="audit-to" name="to" type="date" defaultValue={params.to} />
      </div>
      <div className="col-span-2 flex gap-2 lg:col-span-1">
        <button type="submit" className={buttonClass('primary')}>
          Filter
        </button>
        <Link href="/admin/audit" className={buttonClass('ghost')}>
          Clear
        </Link>
      </div>
    </form>
  );
}

/** "instance key: revoked" — the words, not the code (the code is the option's value and shows on each record). */
function actionOption(action: string) {
  const type = action.split('.')[0] ?? '';
  const noun = TARGET_TYPES[type] ?? type.replace(/_/g, ' ');
  const words = actionWords(action);
  return `${noun.charAt(0).toUpperCase()}${noun.slice(1)}: ${words}`;
}
