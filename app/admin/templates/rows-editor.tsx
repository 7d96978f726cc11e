'use client';
/** Editable list of rows (env vars, ports, volumes…), with per-cell server errors ("ports.1.containerPort"). */
import { Button, Input, Select } from '../../_components/ui';

export type Column<T> =
  | { key: keyof T & string; label: string; kind: 'text' | 'number'; placeholder?: string; width?: string }
  | { key: keyof T & string; label: string; kind: 'checkbox' }
  | { key: keyof T & string; label: string; kind: 'select'; options: string[] };

export function RowsEditor<T extends Record<string, unknown>>({
  id,
  label,
  rows,
  columns,
  blank,
  onChange,
  errors,
  addLabel,
}: {
  id: string;
  label: string;
  rows: T[];
  columns: Column<T>[];
  blank: T;
  onChange: (rows: T[]) => void;
  errors: Record<string, string>;
  addLabel: string;
}) {
  const set = (i: number, key: string, value: unknown) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  const topError = errors[id] && !Object.keys(errors).some((k) => k.startsWith(`${id}.`)) ? errors[id] : undefined;
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-zinc-800">{label}</legend>
      {rows.length === 0 ? <p className="text-sm text-zinc-600">None.</p> : null}
      {rows.map((row, i) => (
        <div key={i} className="flex flex-wrap items-start gap-2 rounded-lg border border-zinc-200 p-2">
          {columns.map((c) => {
            const cellId = `${id}-${i}-${c.key}`;
            const err = errors[`${id}.${i}.${c.key}`];
            const invalid = err ? true : undefined;
            return (
              <div
                key={c.key}
                className={c.kind === 'checkbox' ? 'flex items-center gap-1.5 self-center' : 'min-w-[8rem] flex-1'}
              >
                {c.kind === 'checkbox' ? (
                  <>
                    <input
                      id={cellId}
                      type="checkbox"
                      checked={Boolean(row[c.key])}
                      onChange={(e) => set(i, c.key, e.target.checked)}
                      className="h-4 w-4 accent-blue-700"
                    />
                    <label htmlFor={cellId} className="text-sm">
                      {c.label}
                    </label>
                  </>
                ) : (
                  <>
                    <label htmlFor={cellId} className="sr-only">
                      {label} {i + 1} {c.label}
                    </label>
                    {c.kind === 'select' ? (
                      <Select
                        id={cellId}
                        value={String(row[c.key] ?? '')}
                        onChange={(e) => set(i, c.key, e.target.value)}
                        aria-invalid={invalid}
                      >
                        {c.options.map((o) => (
                          <option key={o} value={o}>
                            {o}
                          </option>
                        ))}
                      </Select>
                    ) : (
                      <Input
                        id={cellId}
                        type={c.kind === 'number' ? 'number' : 'text'}
                        placeholder={c.placeholder ?? c.label}
                        value={String(row[c.key] ?? '')}
                        onChange={(e) =>
                          set(
                            i,
                            c.key,
                            c.kind === 'number'
                              ? e.target.value === ''
                                ? ''
                                : Number(e.target.value)
                              : e.target.value,
                          )
                        }
                        aria-invalid={invalid}
                        aria-describedby={err ? `${cellId}-error` : undefined}
                      />
                    )}
                    {err ? (
                      <p id={`${cellId}-error`} className="mt-0.5 text-xs text-red-700">
                        {c.label}: {err}
                      </p>
                    ) : null}
                  </>
                )}
              </div>
            );
          })}
          <Button
            size="sm"
            variant="ghost"
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
            aria-label={`Remove ${label} ${i + 1}`}
          >
            Remove
          </Button>
        </div>
      ))}
      {topError ? <p className="text-sm text-red-700">{topError}</p> : null}
      <Button size="sm" variant="secondary" onClick={() => onChange([...rows, { ...blank }])}>
        {addLabel}
      </Button>
    </fieldset>
  );
}
