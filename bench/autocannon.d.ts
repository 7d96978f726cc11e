/** autocannon ships no types; the bench uses its programmatic API through bench/load.ts only. */
declare module 'autocannon' {
  const autocannon: (
    options: Record<string, unknown>,
    callback: (err: Error | null, result: any) => void,
  ) => import('node:events').EventEmitter & {
    stop(): void;
  };
  export default autocannon;
}
