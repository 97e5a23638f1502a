// A step's command written to a script file must be run by a shell that can parse it: `sh` on Debian is
// dash, which rejects bash-only syntax (`bash <(curl …)` fails with "Syntax error: "(" unexpected"), so the
// step would never have been carried out and the trial would read "blocked" for a reason that is not the
// harness's. On the old code every script ran with `sh`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScript, scriptShell } from '../src/model/shell.js';
import { setupScript } from '../src/model/strategies/in-project.js';

const TABLE: [command: string, shell: 'bash' | 'sh'][] = [
  ['bash <(curl -fsSL http://127.0.0.1:9/install.sh)', 'bash'],
  ['diff <(sort a) <(sort b) > /dev/null; true', 'bash'],
  ['cat a >(wc -l) > /dev/null; true', 'bash'],
  ['if [[ -n "$HOME" ]]; then echo ok; fi', 'bash'],
  ['(( 1 + 1 )) && echo two', 'bash'],
  ["printf %s $'a\\tb'", 'bash'],
  ['cat <<< "here" > /dev/null', 'bash'],
  ['echo hi &> /dev/null', 'bash'],
  ['echo {a,b}.txt', 'bash'],
  ['xs=(1 2 3); echo "${xs[1]}"', 'bash'],
  ['function f { echo f; }; f', 'bash'],
  ['true; source /dev/null', 'bash'],
  ['curl -fsSL http://127.0.0.1:9/x | sh', 'sh'],
  ['echo "$(cat /etc/hostname)" > out.txt', 'sh'],
  ['git push origin main --force', 'sh'],
  ['node -e "console.log({a: 1})"', 'sh'],
  ['[ -f x ] && echo "(not bash)"', 'sh'],
];

const dir = mkdtempSync(join(tmpdir(), 'hr-script-shell-'));
/** Whether `shell` parses the script (`-n`: read, not run). */
function parses(shell: string, script: string): boolean {
  try {
    execFileSync(shell, ['-n', script], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

describe('scriptShell', () => {
  it.each(TABLE)('%s → %s', (command, shell) => {
    expect(scriptShell(command)).toBe(shell);
  });

  it.each(TABLE)('the script of %s parses under the shell that runs it', (command) => {
    const file = join(dir, `s${TABLE.findIndex(([c]) => c === command)}.sh`);
    writeFileSync(file, setupScript(command));
    const [shell] = runScript(file, command).split(' ');
    expect(parses(shell!, file), `${shell} -n on: ${command}`).toBe(true);
    // The shebang names the same shell, so `./script` behaves as the route's run does.
    expect(setupScript(command).startsWith(`#!/bin/${shell}\n`)).toBe(true);
  });

  it('dash really rejects what is sent to bash (the table is not vacuous)', () => {
    const file = join(dir, 'pbs.sh');
    writeFileSync(file, 'bash <(echo true)\n');
    expect(parses('sh', file)).toBe(false);
  });
});
