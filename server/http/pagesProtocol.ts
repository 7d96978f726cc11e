/** What the edge's thread (pages.ts) and the pages thread (pagesThread.ts) say to each other. */
import type { MetricSnapshot } from '@shared/metrics';

/** The pages thread's start: where Next.js finds its build, and the socket it answers on. */
export interface PagesThreadData {
  pages: { dir: string; hostname: string; port: number; socketPath: string };
}

/** The edge's thread asks for the thread's counters (/metrics), or for its drain (SIGTERM). */
export type PagesRequest = { op: 'metrics' | 'drain'; id: number };
export type PagesAnswer = { id: number; metrics?: MetricSnapshot[] };
export type PagesReady = { ready: true };

/**
 * Who called, as the pages thread's credential resolver noted it (log.ts noteCaller), for the edge's access line:
 * a header of the pages thread's answer that the edge takes off. Set when the answer's headers go out, so a page
 * that streams its shell before it knows its caller is logged as anonymous.
 */
export const CALLER_HEADER = 'x-hub-caller';
