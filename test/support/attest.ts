// The test suite's attestation key (src/result/attestation.ts). Public, so it proves nothing outside this
// suite: the committed result fixtures are signed with it (test/fixtures/results/sign.ts), and tests that
// report those files (the action bundle, the CLI) hold it, as a real workflow holds HR_ATTEST_KEY.

import { keyFrom, signResult } from '../../src/result/attestation.js';
import { resultBytes } from '../../src/result/integrity.js';
import type { RunResult } from '../../src/spec/run-result.js';

export const TEST_ATTEST_KEY = 'harness-risk test suite key: public, never sign a real run with it';
export const TEST_KEY = keyFrom(TEST_ATTEST_KEY, 'HR_ATTEST_KEY');

/** `doc` as the engine would write it, signed with the test key (any old signature replaced). */
export function signedBytes(doc: RunResult): string {
  const { attestation: _, ...rest } = doc;
  return resultBytes({ ...rest, attestation: signResult(rest as RunResult, TEST_KEY) });
}

/** Environment that holds the test key (for the action bundle and the CLI in a child process). */
export const TEST_KEY_ENV = { HR_ATTEST_KEY: TEST_ATTEST_KEY };
