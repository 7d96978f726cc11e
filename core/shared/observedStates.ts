/**
 * Definitions Core's server (core/src) and its web UI (core/web) both use; this folder imports nothing.
 *
 * Every observed state of a deployment, in the order the API's enum and the overview's counts list them.
 */
export const OBSERVED_STATES = [
  'pending',
  'pulling',
  'starting',
  'running',
  'restarting',
  'exited',
  'failed',
  'unschedulable',
  'template_missing',
  'unknown',
] as const;

export type ObservedState = (typeof OBSERVED_STATES)[number];
