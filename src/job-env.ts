// The workflow's own variables, by name: never given to anything the harness's authors wrote (the harness
// in a trial, its npm install scripts), even when an adapter asks for them.

/** The job's token, every action input (`INPUT_GITHUB-TOKEN`…), the runner's own tokens and settings. */
export const FORBIDDEN_ENV = /^(GITHUB_TOKEN|GH_TOKEN|ACTIONS_.*|INPUT_.*|RUNNER_.*)$/;
