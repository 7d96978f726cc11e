'use client';
/**
 * The search box above the admin lists: submits the trimmed text. Optional, backward compatible:
 * `value` shows the search the list currently has (e.g. from the URL; the box follows it when it changes
 * elsewhere, as after Back), and `delayMs` also searches as you type, that long after the last keystroke.
 */
import { useEffect, useRef, useState } from 'react';
import { Button, Input } from './ui';

export function SearchForm({
  id,
  label,
  placeholder,
  onSearch,
  value,
  delayMs,
}: {
  id: string;
  label: string;
  placeholder: string;
  onSearch: (query: string) => void;
  value?: string;
  delayMs?: number;
}) {
  const [text, setText] = useState(value ?? '');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const sent = useRef(value ?? '');

  // The list's search changed elsewhere (Back, a link): show it.
  useEffect(() => {
    if (value === undefined || value === sent.current) return;
    sent.current = value;
    setText(value);
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const send = (query: string) => {
    clearTimeout(timer.current);
    sent.current = query;
    onSearch(query);
  };

  const type = (next: string) => {
    setText(next);
    if (delayMs === undefined) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (next.trim() !== sent.current) send(next.trim());
    }, delayMs);
  };

  return (
    <form
      role="search"
      className="flex max-w-md gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        send(text.trim());
      }}
    >
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Input id={id} type="search" placeholder={placeholder} value={text} onChange={(e) => type(e.target.value)} />
      <Button type="submit" variant="secondary">
        Search
      </Button>
    </form>
  );
}
