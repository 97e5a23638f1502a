// The docker runner's public surface (src/runner/docker.ts re-exports it).
export { ownerGone, ownerId, sweepRun, sweepStale } from './cleanup.js';
export { dockerReachable } from './daemon.js';
export { mapReadOnly } from './mounts.js';
export { EndpointBridge, RELAY_JS } from './network.js';
export {
  BOOT_LABEL,
  DEFAULT_IMAGE,
  DEFAULT_SOCKET,
  type DockerRunnerOptions,
  FAKE_HOSTS,
  OWNER_LABEL,
  parseMemory,
  parseSize,
  RUN_LABEL,
  SANDBOX_PATHS,
  TRIAL_LABEL,
} from './options.js';
export { type DockerProcessOutcome, DockerRunner } from './runner.js';
