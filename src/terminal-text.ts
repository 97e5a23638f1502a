// Harness output shown on a terminal is data: its colour codes, cursor moves and window-title sequences
// are removed (not just their ESC byte, which would leave "[31m" behind), as are other controls.

/**
 * CSI (`ESC [ … final`, 8-bit too), OSC (`ESC ] … BEL|ST`), DCS/SOS/PM/APC strings (7- and 8-bit),
 * character-set designations (`ESC ( B`: intermediates then a final) and two-byte ESC sequences.
 */
const ESCAPE_SEQUENCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]+[0-~]|\u001b[@-Z\\-_]|\u001b./g;
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Pure: the text without terminal escape sequences and controls; line breaks (VT, FF, NEL too) and tabs kept. */
export function plainText(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/\r(?!\n)|[\u000B\u000C\u0085]/g, '\n')
    .replace(CONTROL, '');
}

/** Pure: one line for a terminal: plain text, breaks and tabs as spaces, at most `max` characters. */
export function terminalLine(text: string, max = 160): string {
  const line = plainText(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
