// The action's body: inputs → engine → compare → report → outputs. (Being written; see issue 3.)
import * as core from '@actions/core';

export async function run(): Promise<void> {
  core.setFailed('harness-risk-action: the action front end is not finished yet');
}
