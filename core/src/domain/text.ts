/**
 * Strings the database cannot store faithfully (NUL, lone surrogates) and input nested too deep to walk: the one
 * check of both services (@shared/ops), worded for Core. Every adapter checks its input with this before any rule
 * runs, so such input is a 400 naming the field.
 */
import { findUnstorableIssue } from '@shared/ops';

export { unstorable } from '@shared/ops';

/** The first problem in a JSON value (keys included): "<field>: <problem>", or null. */
export function findUnstorable(value: unknown): string | null {
  const issue = findUnstorableIssue(value);
  if (!issue) return null;
  const at = (issue.key ? issue.path.slice(0, -1) : issue.path).join('.');
  if (issue.key) return `${at ? `${at}: a field name` : 'a field name'} ${issue.message}`;
  return `${at || 'body'}: ${issue.message}`;
}
