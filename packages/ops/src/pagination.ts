/** The `pagination` object of every paged list answer of the Hub and Core. */
export interface PageRequest {
  /** 1-based. */
  page: number;
  limit: number;
}

export interface Pagination extends PageRequest {
  total: number;
  totalPages: number;
}

/** The page asked for (only its page and limit are read) and the total it belongs to. */
export function pagination({ page, limit }: PageRequest, total: number): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}
