import { readFileSync, writeFileSync } from 'node:fs';
import { lintCase } from '../src/cases/lint.js';
import { loadCaseFile } from '../src/cases/load.js';
for (const f of process.argv.slice(2)) {
  const c = loadCaseFile(f);
  for (const x of lintCase(c.case, f)) {
    if (x.path.join('.') !== 'checks.utility' || !x.hint?.includes('e.g. utility: ')) continue;
    const expr = x.hint.slice(x.hint.indexOf('e.g. utility: ') + 'e.g. utility: '.length);
    const lines = readFileSync(f, 'utf8').split('\n');
    const start = lines.findIndex((l) => l === 'checks:');
    const i = lines.findIndex((l, k) => k > start && /^  utility: \{/.test(l));
    if (start < 0 || i < 0) { console.log('SKIP', f); continue; }
    lines[i] = `  utility: ${expr}`;
    writeFileSync(f, lines.join('\n'));
    console.log('fixed', f);
  }
}
