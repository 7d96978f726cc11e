'use client';
/**
 * Copies a value to the clipboard. The button is named by `label` (e.g. "Copy image reference"); after a click its
 * text reads "Copied" for a few seconds and a status message says what was copied (screen readers hear it).
 * Falls back to a hidden text area + execCommand where the Clipboard API is missing (plain http off localhost).
 */
import { useEffect, useRef, useState } from 'react';
import { cx } from './ui';

async function writeClipboard(value: string) {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(value);
      return true;
    } catch {
      /* refused (permissions, insecure context): try the old way */
    }
  }
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.top = '0';
  area.style.left = '0';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

export function CopyButton({
  value,
  label,
  what,
  className,
}: {
  value: string;
  label: string;
  what: string;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <>
      <button
        type="button"
        aria-label={state === 'idle' ? label : `${label}, ${state === 'copied' ? 'copied' : 'copy failed'}`}
        data-state={state}
        onClick={async () => {
          clearTimeout(timer.current);
          const ok = await writeClipboard(value);
          setState(ok ? 'copied' : 'failed');
          timer.current = setTimeout(() => setState('idle'), 4000);
        }}
        className={cx(
          'inline-flex shrink-0 items-center gap-1 rounded-md border px-2 py-1 text-xs font-medium whitespace-nowrap transition-colors',
          state === 'copied'
            ? 'border-green-600 bg-green-50 text-green-800'
            : state === 'failed'
              ? 'border-red-600 bg-red-50 text-red-800'
              : 'border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100',
          className,
        )}
      >
        {state === 'copied' ? <CheckIcon /> : <ClipboardIcon />}
        <span aria-hidden="true">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
      </button>
      <span role="status" className="sr-only">
        {state === 'copied'
          ? `${what} copied`
          : state === 'failed'
            ? `Could not copy the ${what.toLowerCase()}; select it and copy it by hand`
            : ''}
      </span>
    </>
  );
}

function ClipboardIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 16 16"
      className="h-3.5 w-3.5"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <rect x="4.5" y="3.5" width="8" height="10" rx="1.5" />
      <path d="M6.5 3.5V2.75c0-.41.34-.75.75-.75h1.5c.41 0 .75.34.75.75v.75" />
    </svg>
  );
}

function CheckIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 16 16"
      className="h-3.5 w-3.5"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      <path d="m3.5 8.5 3 3 6-7" />
    </svg>
  );
}
