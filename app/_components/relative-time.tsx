'use client';
/**
 * "3 minutes ago", with the exact time in the tooltip and a machine-readable <time dateTime>.
 *
 * Hydration-safe: the server and the browser's first render both produce the text for the server's
 * clock (rounded to whole units it almost always matches; the one node carries suppressHydrationWarning
 * for the rare tick in between) and the exact time in UTC. After mounting, the browser switches the
 * tooltip to the reader's own time zone and keeps the text current (every 30 s).
 */
import { useEffect, useState } from 'react';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "just now", "3 minutes ago", "yesterday", "in 2 hours" (English, like the rest of the dashboard). */
export function formatRelative(date: Date, now: Date = new Date()): string {
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  for (const [unit, size] of UNITS) {
    if (abs >= size * 0.95 || unit === 'minute') return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(Math.round(seconds / 60), 'minute');
}

/** "2026-11-26 06:11:04 UTC": the same on the server and in every browser. */
export function formatExactUtc(date: Date): string {
  return `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

function formatExactLocal(date: Date): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' }).format(date);
}

export function RelativeTime({ value, className }: { value: string | Date | null | undefined; className?: string }) {
  const date = value ? new Date(value) : null;
  const valid = date !== null && !Number.isNaN(date.getTime());
  const [now, setNow] = useState<Date | null>(null);
  useEffect(() => {
    if (!valid) return;
    setNow(new Date());
    const timer = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(timer);
  }, [valid]);
  if (!valid) return <span className={className}>—</span>;
  return (
    <time
      dateTime={date.toISOString()}
      title={now ? formatExactLocal(date) : formatExactUtc(date)}
      className={className}
      suppressHydrationWarning
    >
      {formatRelative(date, now ?? undefined)}
    </time>
  );
}
