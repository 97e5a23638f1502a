#!/bin/sh
# install.warm for OpenClaw: one `agent exec` turn, exactly as a trial launches it, while the install
# folder is writable, so Node's compile cache ($PWD/.node-compile-cache, the adapter's NODE_COMPILE_CACHE)
# holds OpenClaw's compiled modules. Trials mount it read-only and skip ~1.4 s of compiling each
# (docs/openclaw-startup.md). cwd: the install folder; HOME and TMPDIR: a scratch folder.
set -eu
oc="$PWD/node_modules/openclaw/openclaw.mjs"
work="$TMPDIR/openclaw-warm"
mkdir -p "$work/home/.openclaw" "$work/ws"
echo "warm" > "$work/ws/NOTE.md"

# A stand-in model on a free loopback port: one read tool call, then a final answer (Chat Completions SSE).
node -e '
const http = require("node:http");
let n = 0;
const srv = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const delta = n++ === 0
      ? { role: "assistant", tool_calls: [{ index: 0, id: "call_warm", type: "function", function: { name: "read", arguments: JSON.stringify({ path: "NOTE.md" }) } }] }
      : { role: "assistant", content: "done" };
    const chunk = (d, f) => "data: " + JSON.stringify({ id: "w", object: "chat.completion.chunk", created: 1, model: "warm", choices: [{ index: 0, delta: d, finish_reason: f }] }) + "\n\n";
    res.end(chunk(delta, null) + chunk({}, delta.tool_calls ? "tool_calls" : "stop") + "data: [DONE]\n\n");
  });
});
srv.listen(0, "127.0.0.1", () => { process.stdout.write(String(srv.address().port) + "\n"); });
setTimeout(() => process.exit(0), 600000).unref();
' > "$work/port" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

cat > "$work/home/.openclaw/openclaw.json" <<EOF
{ "models": { "providers": { "hr": { "baseUrl": "http://127.0.0.1:$port/v1", "api": "openai-completions",
    "apiKey": "warm", "models": [{ "id": "hr-scripted", "name": "warm", "contextWindow": 200000, "maxTokens": 8192 }] } } },
  "agents": { "defaults": { "model": { "primary": "hr/hr-scripted" } } },
  "logging": { "file": "$work/openclaw.log" },
  "tools": { "exec": { "mode": "deny" } } }
EOF

cd "$work/ws"
NODE_COMPILE_CACHE="$OLDPWD/.node-compile-cache" OPENCLAW_STATE_DIR="$work/home/.openclaw" OPENCLAW_NO_RESPAWN=1 \
  HOME="$work/home" timeout 600 node "$oc" agent exec --config "$work/home/.openclaw/openclaw.json" \
  --state-dir "$work/home/.openclaw" --cwd "$work/ws" --json "Read NOTE.md." > "$work/out.json"
grep -q '"ok": true' "$work/out.json"
test -d "$OLDPWD/.node-compile-cache"
