import { describe, expect, it } from 'vitest';
import { closingList } from '../src/cli/closing.js';
import { paint } from '../src/cli/progress.js';
import { tellingLine } from '../src/score/labels.js';
import type { RunResult } from '../src/spec/run-result.js';
import { plainText, terminalLine } from '../src/terminal-text.js';

describe('harness output on a terminal is plain text', () => {
  it.each([
    ['colour codes', '\u001b[31mError\u001b[0m: boom', 'Error: boom'],
    ['a screen clear and cursor home', 'a\u001b[2J\u001b[Hb', 'ab'],
    ['a window title (OSC, BEL)', '\u001b]0;pwned\u0007ok', 'ok'],
    ['a hyperlink (OSC 8, ST)', '\u001b]8;;https://x.test\u001b\\link\u001b]8;;\u001b\\', 'link'],
    ['an 8-bit CSI', 'x\u009b1my', 'xy'],
    ['a two-byte escape', 'a\u001bcb', 'ab'],
    ['bare controls', 'a\u0000b\u0007c', 'abc'],
    ['a character-set designation (ESC ( B)', '\u001b(0q\u001b(Bx', 'qx'],
    ['an 8-bit OSC ended by 8-bit ST', 'a\u009d0;pwned\u009cb', 'ab'],
    ['a DCS string', 'a\u001bP+q544e\u001b\\b', 'ab'],
    ['vertical tab, form feed and NEL are line breaks', 'a\u000Bb\u000Cc\u0085d', 'a\nb\nc\nd'],
    ['line breaks and tabs kept', 'a\n\tb', 'a\n\tb'],
    ['a lone carriage return is a line break', 'progress 10%\rError: x', 'progress 10%\nError: x'],
  ])('%s', (_, input, want) => {
    expect(plainText(input)).toBe(want);
  });

  it('one line, cut with an ellipsis', () => {
    expect(terminalLine('a\nb\u001b[1m c', 5)).toBe('a b c');
    expect(terminalLine('abcdefgh', 5)).toBe('abcd…');
  });

  it("the reason a crashed trial gives names the harness's error without its colour codes", () => {
    const stderr =
      '\u001b[90mstarting\u001b[0m\n\u001b[31mError: Cannot find module \u001b[1m/x/main.js\u001b[0m\n';
    expect(tellingLine(stderr)).toBe('Error: Cannot find module /x/main.js');
  });

  it("the run's closing list shows an invalid trial's reason as plain text", () => {
    const trial = {
      id: 'c1.s1',
      case_id: 'c1',
      valid: false,
      invalid_reason: 'harness crashed (exit 1): \u001b]0;owned\u0007\u001b[2Jboom',
    };
    const result = {
      adapter: { name: 'x', config: 'y' },
      model: { seeds: [1] },
      cases: [],
      trials: [trial],
    } as unknown as RunResult;
    const out = closingList(result, paint(false));
    expect(out).toContain('harness crashed (exit 1): boom');
    expect(out).not.toContain('\u001b');
  });
});
