// The first process inside a trial's sandbox (run as `node -e INIT_SOURCE -- SPEC`). It
//  1. relays 127.0.0.1:PORT — the only address the trial's network namespace has — to the unix socket
//     the engine's per-trial endpoint listens on, so the harness reaches its own endpoint and nothing
//     else (no host listener, no other trial, no internet);
//  2. with \`wait\` (a staged sandbox, started before the trial's harness slot), waits for one byte on fd 3
//     from the engine (end of file: the trial was given up, exit without starting anything);
//  3. starts the harness with the environment, cwd and stdio it was given (left blocking: see below),
//     forwards SIGTERM to it;
//  4. reports how the harness ended on fd 3 (one JSON line), with the processes it left running (read
//     from the namespace's own /proc, as evidence: a daemon the harness started and did not stop), then
//     exits, which ends the pid namespace: the kernel kills whatever the harness left behind.
// It is plain JavaScript in a string so it needs no file of its own in dist/.
import { MAX_LEFT_RUNNING } from '../../evidence/types.js';

export interface InitSpec {
  port: number;
  socket: string;
  command: string[];
  cwd: string;
  /** Start the harness only once the engine writes a byte to fd 3 (staged: node's start-up is done by then). */
  wait?: boolean;
  /** Connections the relay holds at once; more are closed on arrival and reported (`connections_dropped`). */
  max_connections?: number;
  /**
   * As root (bwrap.ts): the uid:gid to become before anything else. Changing uid makes the kernel mark
   * the init non-dumpable, so the harness (that uid too) cannot ptrace it or read its /proc/PID/mem.
   */
  drop?: { uid: number; gid: number };
}

export const INIT_SOURCE = String.raw`
const net = require('node:net');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const spec = JSON.parse(process.argv[process.argv.length - 1]);
if (spec.drop) {
  process.setgroups([]); process.setgid(spec.drop.gid); process.setuid(spec.drop.uid);
  if (process.getuid() !== spec.drop.uid || process.geteuid() !== spec.drop.uid) process.exit(125);
}
const report = (o) => { try { fs.writeSync(3, JSON.stringify(o) + '\n'); } catch {} };
// fds 0-2 are the harness's too (one open file description each). Node makes a pipe or socket
// non-blocking the first time process.stdin/stdout/stderr is touched (stream.pipe() below touches them
// to compare), and O_NONBLOCK belongs to the description: the harness would then get EAGAIN on a full
// pipe (Codex: "failed printing to stdout"). So ours are never made: our own words go out blocking.
const { Readable, Writable } = require('node:stream');
const own = (fd) => new Writable({ write(chunk, _enc, cb) { try { fs.writeSync(fd, chunk); } catch {} cb(); } });
const ownStdio = { stdin: new Readable({ read() { this.push(null); } }), stdout: own(1), stderr: own(2) };
for (const [name, stream] of Object.entries(ownStdio))
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
const relay = net.createServer((c) => {
  const u = net.connect(spec.socket);
  const end = () => { c.destroy(); u.destroy(); };
  c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end);
  c.pipe(u); u.pipe(c);
});
// A flood of connections costs the engine one socket each: the relay holds at most max_connections
// (Node closes the others on arrival) and says so once, then with the count when the harness exits.
let dropped = 0;
if (spec.max_connections) relay.maxConnections = spec.max_connections;
relay.on('drop', () => { if (dropped++ === 0) report({ connections_dropped: 1 }); });
relay.on('error', (e) => { report({ infra_error: 'endpoint relay: ' + e.message }); process.exit(125); });
// Every live process of the namespace but the sandbox's own (bwrap at pid 1, the wrappers above us, us).
const leftRunning = () => {
  const ours = new Set([1, process.pid, process.ppid]);
  const out = [];
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch { return out; }
  for (const name of names) {
    if (!/^[0-9]+$/.test(name) || ours.has(Number(name))) continue;
    try {
      const stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      const argv = fs.readFileSync('/proc/' + name + '/cmdline', 'utf8').split('\0').filter(Boolean);
      if (argv.length) out.push({ pid: Number(name), command: argv.join(' ').slice(0, 300) });
    } catch {}
    if (out.length >= ${MAX_LEFT_RUNNING}) break;
  }
  return out;
};
// fd 3 is the engine's end of a socket pair: it says go with one byte, or gives the trial up by closing.
const waitForGo = () => {
  const b = Buffer.alloc(1);
  for (;;) {
    try {
      if (fs.readSync(3, b, 0, 1, null) === 0) process.exit(0);
      return;
    } catch (e) {
      if (e.code !== 'EAGAIN' && e.code !== 'EINTR') process.exit(0);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
};
relay.listen(spec.port, '127.0.0.1', () => {
  if (spec.wait) waitForGo();
  const [cmd, ...args] = spec.command;
  // fd 3 is ours (the status pipe): the harness gets /dev/null there.
  // PWD names the folder the harness starts in, as a shell's exec would leave it (the wrapper shell on the
  // way here reset it to its own folder, /).
  const child = spawn(cmd, args, { cwd: spec.cwd, env: { ...process.env, PWD: spec.cwd }, stdio: ['inherit', 'inherit', 'inherit', 'ignore'], detached: true });
  const forward = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
  process.on('SIGTERM', () => forward('SIGTERM'));
  process.on('SIGINT', () => forward('SIGINT'));
  child.on('error', (e) => {
    // spawn says ENOENT for a missing cwd too: tell the two apart, the fix is in a different field.
    const noCwd = e.code === 'ENOENT' && !fs.existsSync(spec.cwd);
    report({ spawn_error: noCwd ? 'launch.cwd ' + spec.cwd + ' does not exist in the trial (set launch.cwd to a folder that exists, e.g. {{workspace}})' : e.code === 'ENOENT' ? 'command not found: ' + cmd : e.message });
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    const left = leftRunning();
    report({ exit_code: code, signal, left, ...(dropped ? { connections_dropped: dropped } : {}) });
    process.exit(code === null ? 128 : code);
  });
});
`;
