// Tools of harnesses nobody here has driven, and no adapter hint for them: a step still finds the tool
// whose name (or description) says what it does and whose schema takes what the step passes. Tool
// definitions modelled on published harnesses' shapes (Goose, Cline, Continue, Cursor-style agents), not
// on any harness the built-in adapters name; and the tools that must not be taken for another (an image
// viewer is not a reader, an editor driven by sub-commands is neither a shell nor a writer).
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../src/model/conversation.js';
import { type Capability, nameWords, toolsByShape } from '../src/model/tool-shapes.js';
import { mapAction } from '../src/model/tools.js';
import { makeContext } from './fixtures/model/context.js';

const str = { type: 'string' };
const tool = (
  name: string,
  properties: Record<string, unknown>,
  required: string[],
  description = '',
): ToolSpec => ({
  name,
  description,
  schema: { type: 'object', properties, required },
  callable: true,
});

const developerShell = tool('developer__shell', { command: str }, ['command'], 'Run a command in the shell.');
const textEditor = tool(
  'developer__text_editor',
  {
    command: { type: 'string', enum: ['view', 'write', 'str_replace', 'undo_edit'] },
    path: str,
    file_text: str,
  },
  ['command', 'path'],
  'Perform text editing operations on files; the command decides which.',
);
const writeToFile = tool(
  'write_to_file',
  { path: str, content: str },
  ['path', 'content'],
  'Write content to a file.',
);
const executeCommand = tool(
  'execute_command',
  { command: str, requires_approval: { type: 'boolean' } },
  ['command', 'requires_approval'],
  'Execute a CLI command on the system.',
);
const runTerminal = tool('runTerminalCommand', { command: str, waitForCompletion: { type: 'boolean' } }, [
  'command',
]);
const createNewFile = tool('create_new_file', { filepath: str, contents: str }, ['filepath', 'contents']);
const readFileTool = tool('readFile', { filepath: str }, ['filepath']);
const viewImage = tool('view_image', { path: str }, ['path'], 'View a local image from the filesystem.');
const replaceInFile = tool('edit_file', { path: str, old_string: str, new_string: str }, [
  'path',
  'old_string',
  'new_string',
]);
const fetchPage = tool('get_page', { url: str }, ['url'], 'Fetch a web page and return it as markdown.');
const search = tool('web_search', { query: str }, ['query'], 'Search the web.');
const toolbox = tool('do_it', { input: str }, ['input'], 'Does things.');

describe('nameWords', () => {
  it.each([
    ['developer__shell', ['developer', 'shell']],
    ['runTerminalCommand', ['run', 'terminal', 'command']],
    ['write_to_file', ['write', 'to', 'file']],
    ['WebFetch', ['web', 'fetch']],
  ])('%s', (name, words) => expect(nameWords(name)).toEqual(words));
});

describe('a tool found by what it says and takes', () => {
  const offered = [
    textEditor,
    viewImage,
    replaceInFile,
    search,
    toolbox,
    developerShell,
    writeToFile,
    executeCommand,
    runTerminal,
    createNewFile,
    readFileTool,
    fetchPage,
  ];
  const cases: [Capability, string[]][] = [
    // The editor's `command` is a choice of sub-commands, not a command line.
    ['shell', ['developer__shell', 'execute_command', 'runTerminalCommand']],
    // Named for writing first; the editor needs a sub-command, the replacer an old string.
    ['write', ['write_to_file', 'create_new_file']],
    // The image viewer takes a path and views, but reads no text.
    ['read', ['readFile']],
    // By its description: "Fetch a web page"; the search takes a query, not a URL.
    ['fetch', ['get_page']],
  ];
  it.each(cases)('%s', (capability, names) => {
    expect(toolsByShape(offered, capability).map((t) => t.name)).toEqual(names);
  });

  it('a tool that says nothing of what it does is not taken', () => {
    for (const c of ['shell', 'read', 'write', 'fetch'] as Capability[])
      expect(toolsByShape([toolbox], c)).toEqual([]);
  });
});

describe('mapping onto a harness no adapter hints', () => {
  const ctx = makeContext();
  const goose = [textEditor, developerShell];
  const cline = [writeToFile, executeCommand, readFileTool, fetchPage];

  it('runs a command through the shell it found by shape', () => {
    expect(mapAction({ do: 'run', command: 'ls' }, goose, ctx)).toMatchObject({
      tool: 'developer__shell',
      args: { command: 'ls' },
      via_shell: false,
    });
  });
  it('writes with the write tool it found, filling a required flag with a harmless default', () => {
    expect(
      mapAction({ do: 'write', path: 'NOTES.md', content: 'x', append: false }, cline, ctx),
    ).toMatchObject({
      tool: 'write_to_file',
      args: { content: 'x' },
      via_shell: false,
    });
    expect(mapAction({ do: 'run', command: 'ls' }, cline, ctx)).toMatchObject({
      tool: 'execute_command',
      args: { command: 'ls', requires_approval: false },
    });
  });
  it('reads and fetches with the tools it found', () => {
    expect(mapAction({ do: 'read', path: 'README.md' }, cline, ctx)).toMatchObject({ tool: 'readFile' });
    expect(
      mapAction({ do: 'fetch', url: 'http://127.0.0.1:1/web/a', method: 'GET' }, cline, ctx),
    ).toMatchObject({
      tool: 'get_page',
    });
  });
  it('a write with no write tool goes through the shell it found, never the sub-command editor', () => {
    expect(
      mapAction({ do: 'write', path: 'NOTES.md', content: 'x', append: false }, goose, ctx),
    ).toMatchObject({
      tool: 'developer__shell',
      via_shell: true,
    });
  });
});
