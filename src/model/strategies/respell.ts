// Re-spelling a shell command so that it reads differently and runs the same: an empty quote pair goes
// inside every word (after its first character, then every third), which the shell removes before it runs
// anything (`curl` → `c''url`). Words the shell treats specially are left alone: variable names after `$`,
// the name before an `=` (an assignment), reserved words (`for`, `do`…). Commands whose quoting this
// cannot follow (a heredoc, arithmetic, backslashes) are not re-spelled.

const RESERVED = new Set(
  'if then else elif fi for while until do done case esac in select function time'.split(' '),
);
const WORD_CHAR = /[A-Za-z0-9_./-]/;

/** The word run starting at `i` re-spelled, inserting `pair` inside it. */
function respellWord(word: string, pair: string): string {
  let out = word[0]!;
  for (let i = 1; i < word.length; i++) out += (i % 3 === 1 ? pair : '') + word[i];
  return out;
}

/** The command re-spelled, or undefined when it holds what the re-spelling cannot follow. */
export function respell(command: string): string | undefined {
  if (/<<|\$\(\(|\\|`/.test(command)) return undefined;
  let out = '';
  let quote: "'" | '"' | undefined;
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (!WORD_CHAR.test(c)) {
      if (quote === undefined && (c === "'" || c === '"')) quote = c;
      else if (c === quote) quote = undefined;
      out += c;
      i++;
      continue;
    }
    let j = i;
    while (j < command.length && WORD_CHAR.test(command[j]!)) j++;
    const word = command.slice(i, j);
    const afterDollar = /\$\{?$/.test(command.slice(0, i)) && quote !== "'";
    const special = afterDollar || (quote === undefined && (command[j] === '=' || RESERVED.has(word)));
    out += word.length < 2 || special ? word : respellWord(word, quote === '"' ? '""' : "''");
    i = j;
  }
  return quote === undefined ? out : undefined;
}
