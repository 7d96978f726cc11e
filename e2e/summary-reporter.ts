/** Prints one plain closing line, "e2e: N passed, N failed[, N skipped]", for CI logs. */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  private skipped = 0;

  onTestEnd(_test: TestCase, result: TestResult) {
    if (result.status === 'passed') this.passed++;
    else if (result.status === 'skipped') this.skipped++;
    else this.failed++;
  }

  onEnd(result: FullResult) {
    if (result.status !== 'passed' && this.failed === 0) this.failed = 1; // setup failed: nothing ran
    const skipped = this.skipped ? `, ${this.skipped} skipped` : '';
    console.log(`\ne2e: ${this.passed} passed, ${this.failed} failed${skipped}`);
  }

  printsToStdio() {
    return false;
  }
}
