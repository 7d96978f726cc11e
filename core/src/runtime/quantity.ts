/**
 * Kubernetes quantity strings, as templates carry them: CPU (`500m`, `2`, `0.5`) and memory (`512Mi`, `1Gi`,
 * `128M`, `1e9`, plain bytes). Empty or zero means no limit. A malformed one throws a message naming it.
 */
const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, m: 1e-3 };

export class QuantityError extends Error {}

function number(text: string, what: string): { value: number; suffix: string } {
  const m = /^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?([a-zA-Z]*)$/.exec(text.trim());
  if (!m) throw new QuantityError(`${what} ${JSON.stringify(text)} is not a quantity (e.g. ${examples[what]})`);
  return { value: Number(m[1]) * 10 ** Number(m[2] ?? 0), suffix: m[3] ?? '' };
}

const examples: Record<string, string> = { cpu_request: '500m, 2, 0.5', memory_request: '512Mi, 1Gi, 128M' };

/** CPU cores → Docker's NanoCpus; null for no limit. */
export function parseCpu(text: string | undefined | null): number | null {
  if (text === undefined || text === null || text.trim() === '') return null;
  const { value, suffix } = number(text, 'cpu_request');
  if (suffix !== '' && suffix !== 'm')
    throw new QuantityError(`cpu_request ${JSON.stringify(text)}: unknown unit ${suffix} (cores, or m for millicores)`);
  const cores = suffix === 'm' ? value / 1000 : value;
  if (cores === 0) return null;
  const nano = Math.round(cores * 1e9);
  if (nano < 1e6) throw new QuantityError(`cpu_request ${JSON.stringify(text)} is below 1m`);
  return nano;
}

/** Memory → bytes; null for no limit. */
export function parseMemory(text: string | undefined | null): number | null {
  if (text === undefined || text === null || text.trim() === '') return null;
  const { value, suffix } = number(text, 'memory_request');
  const factor = suffix === '' ? 1 : (BINARY[suffix] ?? (suffix === 'm' ? undefined : DECIMAL[suffix]));
  if (factor === undefined)
    throw new QuantityError(
      `memory_request ${JSON.stringify(text)}: unknown unit ${suffix} (Ki, Mi, Gi, Ti, or k, M, G, T, or bytes)`,
    );
  const bytes = Math.round(value * factor);
  return bytes === 0 ? null : bytes;
}
