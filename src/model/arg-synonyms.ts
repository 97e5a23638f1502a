// Names a tool's arguments go by, per value a step passes (a path is `file_path`, `path`, `filename` …):
// one list, read by mapping by name (native-tools.ts), by shape (tool-shapes.ts) and the shell tool.
export const SYN = {
  path: ['file_path', 'path', 'filePath', 'filename', 'file', 'absolute_path'],
  content: ['content', 'contents', 'text', 'file_text', 'data', 'body'],
  command: ['command', 'cmd', 'script', 'commandLine', 'command_line'],
  url: ['url', 'uri', 'href', 'link'],
  method: ['method', 'http_method', 'verb'],
  body: ['body', 'data', 'payload', 'content'],
  to: ['to', 'recipient', 'recipients', 'address', 'email'],
  channel: ['channel', 'channel_id', 'channel_name', 'to', 'room', 'conversation'],
  subject: ['subject', 'title'],
  message: ['body', 'text', 'message', 'content'],
  name: ['name', 'package', 'skill', 'extension', 'plugin', 'id'],
  memory: ['text', 'content', 'memory', 'fact', 'note', 'entry'],
  task: ['prompt', 'task', 'instructions', 'message', 'input', 'query'],
  agent: ['subagent_type', 'agent', 'agent_name', 'agent_type', 'name', 'role'],
} satisfies Record<string, string[]>;
