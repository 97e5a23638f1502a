// Makes a bundle pure ASCII. esbuild escapes non-ASCII characters in string literals but leaves them in
// comments and regular expression literals, and one such character anywhere makes V8 hold the whole
// source as a two-byte string: the CLI's 2.6 MB bundle then took 5.1 MB of heap (~3 MiB of the engine's
// peak RSS before its first trial, issue 17). Every remaining character is replaced by its \uXXXX escape,
// which means the same in a comment (nothing), a regular expression, a string or an identifier. Only the
// raw text of a tagged template (String.raw`…`) would change; one there fails the build, naming the line.
import ts from 'typescript';

const NON_ASCII = /[^\x00-\x7f]/g;
const unicodeEscape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Whether `pos` is inside the template of a tagged template expression. */
function inTaggedTemplate(sf, pos) {
  let node = sf;
  for (;;) {
    let next;
    ts.forEachChild(node, (child) => {
      if (next === undefined && pos >= child.getStart(sf) && pos < child.end) next = child;
    });
    if (next === undefined) return false;
    if (ts.isTaggedTemplateExpression(node) && next === node.template) return true;
    node = next;
  }
}

/** The bundle's text with every non-ASCII character escaped; throws when one is in a tagged template. */
export function asciiOnly(text, file) {
  if (!NON_ASCII.test(text)) return text;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  return text.replace(NON_ASCII, (c, pos) => {
    if (inTaggedTemplate(sf, pos)) {
      const { line, character } = sf.getLineAndCharacterOfPosition(pos);
      throw new Error(
        `${file}:${line + 1}:${character + 1}: a non-ASCII character (${unicodeEscape(c)}) in a tagged template's raw text; write it as an escape in the source`,
      );
    }
    return unicodeEscape(c);
  });
}
