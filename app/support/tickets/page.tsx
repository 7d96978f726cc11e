import { redirect } from 'next/navigation';

export const dynamic = 'force-dynamic';

/** The tickets list lives at /support; /support/tickets (the parent of /support/tickets/<id>) leads there, query kept. */
export default async function SupportTicketsIndex({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams))
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) query.append(k, one);
  const s = query.toString();
  redirect(s ? `/support?${s}` : '/support');
}
