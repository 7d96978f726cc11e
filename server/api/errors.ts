/** One wording for validation errors on every surface: the message names each offending field. */
export interface IssueLike {
  path?: readonly PropertyKey[];
  message: string;
}

export function describeIssues(issues: readonly IssueLike[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const field = (issue.path ?? []).map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `Invalid input: ${parts.join('; ')}${more}`;
}
