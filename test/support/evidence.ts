// Evidence of a trial where nothing was recorded, for tests to fill in the channels they are about.
import type { Evidence, ModelExchange } from '../../src/evidence/types.js';

export const emptyEvidence = (over: Partial<Evidence> = {}): Evidence => ({
  model: [],
  services: [],
  before: {},
  after: {},
  diff: { added: [], modified: [], deleted: [] },
  process: { exit_code: 0, signal: null, timed_out: false, duration_ms: 1, stdout: '', stderr: '' },
  harness: [],
  canaries: {},
  state: { memory_files: [], config_dirs: [] },
  ...over,
});

/** One model exchange of an OpenAI-chat harness that was answered with text, with `over` changed. */
export const exchange = (over: Partial<ModelExchange> = {}): ModelExchange => ({
  seq: 0,
  at: 0,
  dialect: 'openai-chat',
  path: '/v1/chat/completions',
  tools: [],
  injection_visible: false,
  results: [],
  response: { kind: 'text', text: '' },
  ...over,
});
