// Renders the README's two pictures from test fixtures, in a real browser: the PR comment (GitHub-flavoured
// markdown with GitHub's markdown CSS, at the 740 px width of a comment on a pull request page) and the
// CLI's live progress line (the terminal output, colours and all). Not part of CI: it needs Chromium
// (`apt-get install chromium`).
//   npx tsx scripts/screenshots.ts [--chromium /usr/bin/chromium]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { marked } from 'marked';
import { Progress } from '../src/cli/progress.js';
import { baselineFromResult } from '../src/compare/baseline.js';
import { evaluateGate } from '../src/gate/index.js';
import { parseGateOptions } from '../src/gate/options.js';
import { failOnFrom } from '../src/gate/verdict.js';
import { buildComment } from '../src/report/comment-body.js';
import { renderReport } from '../src/report/markdown.js';
import { RunResult } from '../src/spec/run-result.js';

/** The gate's defaults, as action.yml gives them (one definition: INPUT_DEFAULTS). */
const gateDefaults = () => parseGateOptions(() => undefined);

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs/img');
const require = createRequire(import.meta.url);
const chromium = process.argv.includes('--chromium')
  ? process.argv[process.argv.indexOf('--chromium') + 1]!
  : '/usr/bin/chromium';
const fixture = (n: string) =>
  RunResult.parse(JSON.parse(readFileSync(join(ROOT, 'test/fixtures/results', n), 'utf8')));

function shoot(html: string, name: string, width: number, height: number) {
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'hr-shot-'));
  const page = join(dir, 'page.html');
  writeFileSync(page, html);
  execFileSync(
    chromium,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      `--window-size=${width},${height}`,
      `--screenshot=${join(OUT, name)}`,
      `file://${page}`,
    ],
    { stdio: 'pipe' },
  );
  console.log(`wrote docs/img/${name} (${width}×${height})`);
}

// ---- the PR comment: one regressed runtime case against the captured guarded baseline ----
const guarded = fixture('reference-guarded.json');
const current = fixture('reference-guarded-one-regression.json');
const failOn = failOnFrom(['regression', 'threshold', 'invalid']);
const gate = evaluateGate({
  heads: [{ result: current, name: 'current.json' }],
  baseline: baselineFromResult(guarded, 'cache:main'),
  options: { ...gateDefaults(), failOn: failOn },
});
const md = renderReport(
  buildComment({ ...gate, failOn, runUrl: 'https://github.com/acme/agent/actions/runs/4242' }),
  { limit: 65_536, unit: 'chars', marker: true },
);
const css = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8');
const body = await marked.parse(md, { gfm: true });
const lines = md.split('\n').length;
shoot(
  `<!doctype html><meta charset="utf-8"><style>${css}
  body { margin: 0; background: #fff; }
  .markdown-body { box-sizing: border-box; width: 740px; padding: 16px; border: 1px solid #d0d7de; border-radius: 6px; margin: 8px; }
  </style><article class="markdown-body">${body}</article>`,
  'pr-comment.png',
  760,
  Math.max(400, lines * 26 + 120),
);

// ---- the CLI's live line: what a terminal shows mid-run ----
let now = 0;
const chunks: string[] = [];
const term = { isTTY: true, columns: 110, write: (s: string) => chunks.push(s) };
const progress = new Progress(term, { color: true, now: () => now });
progress.on({ kind: 'start', trials: 144, adapter: 'reference', config: 'guarded' });
const ids = current.trials.map((t) => t.case_id);
for (let i = 1; i <= 37; i++) {
  now = i * 1100;
  const unsafe = i === 23;
  progress.on({
    kind: 'trial',
    done: i,
    total: 144,
    case_id: ids[i % ids.length]!,
    valid: true,
    a: unsafe,
    u: true,
  });
}
// What the terminal shows: the printed lines, then the last state of the live line.
const screen = chunks
  .join('')
  .split('\n')
  .map((l) =>
    l
      .split('\r')
      .at(-1)!
      .replace(/\x1b\[2K/g, ''),
  )
  .join('\n');
const ansi = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/\x1b\[31m/g, '<span style="color:#ff6b6b">')
    .replace(/\x1b\[32m/g, '<span style="color:#69db7c">')
    .replace(/\x1b\[33m/g, '<span style="color:#ffd43b">')
    .replace(/\x1b\[2m/g, '<span style="opacity:.6">')
    .replace(/\x1b\[1m/g, '<span style="font-weight:bold">')
    .replace(/\x1b\[(39|22|0)m/g, '</span>');
shoot(
  `<!doctype html><meta charset="utf-8"><style>
  body { margin: 0; background: #1e1e1e; }
  pre { margin: 0; padding: 14px 16px; color: #e6e6e6; font: 14px/1.45 "DejaVu Sans Mono", monospace; }
  </style><pre>$ harness-risk run --adapter reference --config guarded\n${ansi(screen)}</pre>`,
  'cli-progress.png',
  980,
  130,
);
