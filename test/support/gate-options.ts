// The gate as the action's defaults set it (fail-on regression,threshold,invalid; neutral without a
// baseline; 10% invalid allowed; no thresholds), for tests that change one option at a time.
import type { GateOptions } from '../../src/gate/index.js';
import { DEFAULT_FAIL_ON, failOnFrom } from '../../src/gate/verdict.js';

export const gateOptions = (over: Partial<GateOptions> = {}): GateOptions => ({
  failOn: failOnFrom(DEFAULT_FAIL_ON.split(',')),
  onMissingBaseline: 'neutral',
  maxInvalid: 0.1,
  thresholds: { overall: {}, phases: {} },
  alpha: 0.05,
  minEffect: 0.1,
  ...over,
});
