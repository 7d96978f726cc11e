/**
 * Test file order (vitest sequence.sequencer): vitest's own order (slowest first once it has timed a run,
 * by size on a fresh clone), except that files starting real processes (the source calls spawn) go first.
 * They are the longest files of a run; started last they would leave one worker running alone at the end.
 */
import fs from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const startsProcesses = (file: string) => /\bspawn(Sync)?\(|from '\.\/processes'/.test(fs.readFileSync(file, 'utf8'));

export default class ProcessesFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((spec) => startsProcesses(spec.moduleId));
    return [...first, ...sorted.filter((spec) => !first.includes(spec))];
  }
}
