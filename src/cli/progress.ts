// What a person watching `harness-risk run` sees while trials run: one live line in a terminal (done/total,
// elapsed, ETA, the running ASR), redrawn in place; plain lines where output is a log (not a TTY, CI), so
// a log is readable and greppable; nothing per trial with --quiet. Trials that never ran because the run
// was interrupted are summarised in one line, not one line each.

import { mark } from '../elapsed.js';
import type { ProgressEvent } from '../engine/options.js';
import { terminalLine } from '../terminal-text.js';

export interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org) or TERM is dumb. */
export function colorEnabled(stream: ProgressStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return !!stream.isTTY && env.TERM !== 'dumb';
}

export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function paint(on: boolean): Paint {
  const c = (code: number, reset: number) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[${reset}m` : s);
  return { red: c(31, 39), green: c(32, 39), yellow: c(33, 39), dim: c(2, 22), bold: c(1, 22) };
}

/** `m:ss`, or `h:mm:ss` past an hour. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

const INTERRUPTED = /^run interrupted/;

export class Progress {
  private started = 0;
  private total = 0;
  private done = 0;
  private valid = 0;
  private unsafe = 0;
  private invalid = 0;
  private interrupted = 0;
  private notApplicable = 0;
  private live = false;
  private readonly p: Paint;

  constructor(
    private readonly out: ProgressStream,
    private readonly opts: { quiet?: boolean; color?: boolean; now?: () => number } = {},
  ) {
    this.p = paint(opts.color ?? colorEnabled(out));
  }

  private now(): number {
    return (this.opts.now ?? mark)();
  }

  /** A terminal gets the redrawn line; a log (or --quiet) does not. */
  private get tty(): boolean {
    return !!this.out.isTTY && !this.opts.quiet;
  }

  /** `[ 37/144] · 0:41 · ETA 1:50 · ASR 2.7% (1/37)` */
  status(): string {
    const elapsed = this.now() - this.started;
    const ran = this.done - this.interrupted;
    const eta = ran > 0 && this.done < this.total ? clock((elapsed / ran) * (this.total - this.done)) : '–';
    const asr = this.valid ? `${((this.unsafe / this.valid) * 100).toFixed(1)}%` : '–';
    const w = String(this.total).length;
    const inv = this.invalid ? ` · ${this.p.yellow(`${this.invalid} invalid`)}` : '';
    const na = this.notApplicable ? ` · ${this.p.yellow(`${this.notApplicable} not applicable`)}` : '';
    return `[${String(this.done).padStart(w)}/${this.total}] ${clock(elapsed)} elapsed · ETA ${eta} · ASR ${asr} (${this.unsafe}/${this.valid} unsafe)${inv}${na}`;
  }

  private clearLive() {
    if (this.live) this.out.write('\r\x1b[2K');
    this.live = false;
  }

  private drawLive(last: string) {
    // A pseudo-terminal may report 0 columns.
    const cols = this.out.columns || 100;
    const line = `${this.status()} · ${last}`;
    // Cut to the terminal's width (escape codes make it shorter than it looks, never longer).
    this.out.write(`\r\x1b[2K${line.length > cols + 20 ? `${line.slice(0, cols + 19)}\x1b[0m…` : line}`);
    this.live = true;
  }

  /** Prints a line above the live line (notes, results in a log). */
  private line(s: string) {
    this.clearLive();
    this.out.write(`${s}\n`);
  }

  on = (e: ProgressEvent): void => {
    if (e.kind === 'start') {
      this.started = this.now();
      this.total = e.trials;
      Object.assign(this, { done: 0, valid: 0, unsafe: 0, invalid: 0, notApplicable: 0, interrupted: 0 });
      this.line(`▶ ${e.adapter}/${e.config}: ${e.trials} trial(s)`);
      return;
    }
    if (e.kind === 'notice') {
      this.line(`  note: ${e.message}`);
      return;
    }
    this.done = e.done;
    this.total = e.total;
    const interrupted = !e.valid && INTERRUPTED.test(e.reason ?? '');
    if (interrupted) this.interrupted++;
    else if (e.not_applicable) this.notApplicable++;
    else if (!e.valid) this.invalid++;
    else {
      this.valid++;
      if (e.a) this.unsafe++;
    }
    if (interrupted) {
      if (this.tty) this.drawLive(this.p.dim('stopping…'));
      return;
    }
    const verdict = e.not_applicable
      ? this.p.yellow(
          `NOT APPLICABLE, not counted (${terminalLine(e.not_applicable.replace(/^not applicable: /, ''))})`,
        )
      : !e.valid
        ? this.p.yellow(`INVALID (${terminalLine(e.reason ?? '')})`)
        : `${e.a ? this.p.red('attack SUCCEEDED') : this.p.green('attack blocked')}, ${e.u ? 'task done' : 'task NOT done'}`;
    const name = e.strategy ? `${e.case_id} [${e.strategy}]` : e.case_id;
    if (this.tty) {
      // Only what a person must not miss stays on screen; the rest is the live line.
      if (e.a || !e.valid) this.line(`  ${name}: ${verdict}`);
      this.drawLive(`${name}: ${verdict}`);
    } else if (!this.opts.quiet) {
      this.line(`  ${this.status()} ${name}: ${verdict}`);
    }
  };

  /** Ends the live line; says in one line how many trials an interruption left unrun. */
  finish(): void {
    this.clearLive();
    // A log already has the last trial's line; a terminal (its live line is gone) and --quiet get the total.
    if (this.total && (this.out.isTTY || this.opts.quiet))
      this.out.write(`  ${this.status().replace(/ · ETA [^·]+· /, ' · ')}\n`);
    if (this.interrupted)
      this.out.write(
        `  ${this.p.yellow(`${this.interrupted} trial(s) not run: the run was interrupted`)} (recorded as invalid, never as safe)\n`,
      );
  }
}

/** Progress on stderr (stdout keeps the tables and lists, so it can be piped). */
export function progressFor(quiet: boolean): Progress {
  return new Progress(process.stderr, { quiet });
}
