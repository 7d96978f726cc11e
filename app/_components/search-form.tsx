'use client';
/** The search box above the admin lists: submits the trimmed text. */
import { useState } from 'react';
import { Button, Input } from './ui';

/** `defaultValue`: the search in effect (e.g. from the URL); give the form a `key` of it to follow Back. */
export function SearchForm({ id, label, placeholder, onSearch, defaultValue = '' }: { id: string; label: string; placeholder: string; onSearch: (query: string) => void; defaultValue?: string }) {
  const [text, setText] = useState(defaultValue);
  return (
    <form
      role="search"
      className="flex max-w-md gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Input id={id} type="search" placeholder={placeholder} value={text} onChange={(e) => setText(e.target.value)} />
      <Button type="submit" variant="secondary">
        Search
      </Button>
    </form>
  );
}
