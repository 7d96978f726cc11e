/**
 * A vitest reporter (beside the default one): after the run, the ten slowest test files — the time each
 * spent importing (collect), in its setup file and in its tests and hooks — so CI's log shows where a run's
 * time goes; then every failed test with the first lines of its error, because CI shows only the tail of a
 * long log. Used by the Hub's and Core's vitest configs.
 */
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
const firstLines = (text: string, count: number) => text.split('\n').slice(0, count).join('\n      ');

export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const failures: string[] = [];
    for (const m of testModules) {
      const file = path.relative(process.cwd(), m.moduleId);
      for (const error of m.errors()) failures.push(`${file}\n      ${firstLines(error.message, 4)}`);
      for (const test of m.children.allTests('failed')) {
        const error = test.result().errors?.[0];
        failures.push(`${file} > ${test.fullName}\n      ${firstLines(error?.message ?? 'failed', 4)}`);
      }
    }
    if (testModules.length >= 2) {
      const rows = testModules.map((m) => {
        const d = m.diagnostic();
        return {
          file: path.relative(process.cwd(), m.moduleId),
          total: d.collectDuration + d.setupDuration + d.duration,
          d,
        };
      });
      rows.sort((a, b) => b.total - a.total);
      const lines = rows
        .slice(0, 10)
        .map(
          ({ file, total, d }) =>
            `${seconds(total)}  ${file}  (import ${seconds(d.collectDuration).trim()}, tests ${seconds(d.duration).trim()})`,
        );
      process.stdout.write(`\nSlowest test files (of ${rows.length}):\n${lines.join('\n')}\n`);
    }
    if (failures.length) process.stdout.write(`\nFailed (${failures.length}):\n  ${failures.join('\n  ')}\n`);
  }
}
