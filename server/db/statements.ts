/** Every statement a drizzle handle runs: counted for the metrics, and shown to the tests that observe them. */
import { currentWork } from '../log';
import { hubMetrics } from '../metrics';

/**
 * Statement observers (tests: which tables a page reads). Empty in production, where a statement costs one
 * check of an empty set.
 */
const statementListeners = new Set<(statement: string) => void>();

/** Calls `listener` with the SQL of every statement issued through the query builder; returns the unsubscribe. */
export function observeStatements(listener: (statement: string) => void): () => void {
  statementListeners.add(listener);
  return () => statementListeners.delete(listener);
}

/** Counts the statements a drizzle handle runs (hub_db_statements_total; BEGIN and COMMIT are not counted). */
export function statementLogger(pool: string) {
  const counter = hubMetrics.statementCounter(pool);
  return {
    logQuery(statement: string) {
      counter.inc(currentWork());
      if (statementListeners.size > 0) for (const listener of statementListeners) listener(statement);
    },
  };
}
