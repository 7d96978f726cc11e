/** Class helpers shared by the server-safe kit (ui.tsx) and its client fields (fields.tsx). */
export function cx(...classes: (string | false | null | undefined)[]) {
  return classes.filter(Boolean).join(' ');
}

export const fieldClass =
  'block w-full rounded-lg border border-zinc-400 bg-white px-3 py-2 text-sm text-zinc-900 placeholder:text-zinc-500 ' +
  'aria-[invalid=true]:border-red-600 disabled:bg-zinc-100';
