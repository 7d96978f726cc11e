/**
 * A Runtime that counts what it asks of the engine: every call by name with the time waited for it, and each
 * failure by its kind (core_engine_calls_total, core_engine_call_duration_seconds, core_engine_errors_total).
 * Counting here, at the one door to the engine, is what lets the runtime bench check that an idle pass costs
 * exactly one list call, and tell Core's time in it from the engine's.
 */
import { recordEngineCall } from '../metrics';
import { RuntimeError, type Runtime } from './runtime';

const kindOf = (err: unknown) => (err instanceof RuntimeError ? err.kind : 'other');

export function meteredRuntime(inner: Runtime): Runtime {
  const counted =
    <A extends unknown[], R>(call: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        const result = await fn(...args);
        recordEngineCall(call, performance.now() - started);
        return result;
      } catch (err) {
        recordEngineCall(call, performance.now() - started, kindOf(err));
        throw err;
      }
    };
  return {
    description: inner.description,
    ping: counted('ping', inner.ping.bind(inner)),
    list: counted('list', inner.list.bind(inner)),
    inspect: counted('inspect', inner.inspect.bind(inner)),
    hasImage: counted('has_image', inner.hasImage.bind(inner)),
    pull: counted('pull', inner.pull.bind(inner)),
    create: counted('create', inner.create.bind(inner)),
    start: counted('start', inner.start.bind(inner)),
    stop: counted('stop', inner.stop.bind(inner)),
    restart: counted('restart', inner.restart.bind(inner)),
    remove: counted('remove', inner.remove.bind(inner)),
    removeVolumes: counted('remove_volumes', inner.removeVolumes.bind(inner)),
    logs: counted('logs', inner.logs.bind(inner)),
    events(labels, onEvent, onEnd) {
      recordEngineCall('events', null);
      return inner.events(labels, onEvent, (err) => {
        if (err) recordEngineCall('events_ended', null, kindOf(err));
        onEnd(err);
      });
    },
  };
}
