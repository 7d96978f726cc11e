/** One page of a list and the total it belongs to: the list plumbing every paged read shares. */
export interface Page {
  /** 1-based. */
  page: number;
  limit: number;
}

export interface Paged<T> {
  rows: T[];
  total: number;
}

/**
 * Runs `rows` for the page's window and `count` for the total. A first page that is not full is the
 * whole list: its length is the total, no count query (most searches and small lists end there).
 */
export async function paginate<T>(
  page: Page,
  rows: (window: { limit: number; offset: number }) => PromiseLike<T[]>,
  count: () => PromiseLike<{ n: number }[]>,
): Promise<Paged<T>> {
  const window = { limit: page.limit, offset: (page.page - 1) * page.limit };
  if (page.page === 1) {
    const list = await rows(window);
    if (list.length < page.limit) return { rows: list, total: list.length };
    const [total] = await count();
    return { rows: list, total: total?.n ?? 0 };
  }
  const [list, [total]] = await Promise.all([rows(window), count()]);
  return { rows: list, total: total?.n ?? 0 };
}
