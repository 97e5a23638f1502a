#!/bin/sh
# Builds the local test image for `runner: docker` without any registry (`docker import` of a root
# filesystem made from this machine's own files):
#   - node (this machine's, at /usr/local/bin/node, linked from /usr/bin/node) and the libraries it links;
#   - the tools the built-in cases' shell commands use, copied from this machine's PATH
#     (/usr/local/bin:/usr/bin:/bin, the process runner's) with their libraries: bash, dash as /bin/sh,
#     coreutils, find/xargs, grep/sed/awk, curl, wget, make, python3 (+ stdlib, pip), npm/npx, git (+ git-core)… so a case
#     behaves the same under `runner: docker` as under `runner: process` on this machine;
#   - a static busybox for every other common command;
#   - /etc/passwd with a non-root user `harness` (uid 1000), /tmp, /trial, /opt/hr/ro.
# Idempotent: skipped when the image exists with the same content hash label (this script, the tool list
# and the size/mtime of every file copied).
#
# Usage: sh scripts/docker-image.sh [IMAGE]    (default harness-risk/node:local)
# Env:   NODE_BIN (default: node on PATH), BUSYBOX_BIN, HR_IMAGE_TOOLS (space-separated tool names),
#        HR_IMAGE_FORCE=1 (rebuild even when current)
set -eu

IMAGE="${1:-${HR_DOCKER_IMAGE:-harness-risk/node:local}}"
NODE_BIN="$(readlink -f "${NODE_BIN:-$(command -v node)}")"
HOST_PATH=/usr/local/bin:/usr/bin:/bin
TOOLS="${HR_IMAGE_TOOLS:-sh dash bash ls cat head tail sort uniq wc seq yes dd rm rmdir mkdir mv cp ln chmod touch
  env sleep echo printf tee tr cut date id uname basename dirname readlink realpath stat test true false expr
  find xargs grep sed awk curl wget make python3 pip3 npm npx tar gzip gunzip diff cmp base64 sha256sum
  md5sum which git}"

log() { echo "docker-image: $*" >&2; }

is_static() { ! ldd "$1" >/dev/null 2>&1; }

find_busybox() {
  for b in "${BUSYBOX_BIN:-}" /bin/busybox /usr/bin/busybox /usr/local/bin/busybox; do
    [ -n "$b" ] && [ -x "$b" ] && is_static "$b" && { echo "$b"; return 0; }
  done
  return 1
}

BUSYBOX="$(find_busybox || true)"
if [ -z "$BUSYBOX" ]; then
  log "installing busybox-static from Debian packages"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo -n"; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
  BUSYBOX="$(find_busybox)"
fi

WORK="$(mktemp -d /tmp/hr-rootfs.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT INT TERM
LIST="$WORK/list"   # host paths to replicate: files and symlinks
DIRS="$WORK/dirs"   # host folders to replicate whole (python stdlib, npm)
ROOT="$WORK/root"
: >"$LIST"
: >"$DIRS"

# The shared libraries an ELF file links (the dynamic loader included).
libs_of() {
  ldd "$1" 2>/dev/null | awk '/=>/ { if ($3 ~ /^\//) print $3 } /^[ \t]*\/[^ ]+ \(/ { print $1 }'
}

# A host path, every symlink on the way to the file, and (for ELF files) its libraries; for scripts,
# their interpreter.
add_chain() {
  local p n t l v so
  p="$1"
  n=0
  while [ -L "$p" ] && [ "$n" -lt 20 ]; do
    echo "$p" >>"$LIST"
    t="$(readlink "$p")"
    # Lexically (the image has real /bin, /lib… where this machine may have symlinks to /usr).
    case "$t" in /*) p="$(realpath -ms "$t")" ;; *) p="$(realpath -ms "$(dirname "$p")/$t")" ;; esac
    n=$((n + 1))
  done
  [ -f "$p" ] || return 0
  grep -qxF "$p" "$LIST" && return 0
  echo "$p" >>"$LIST"
  if head -c 4 "$p" | grep -q 'ELF'; then
    for l in $(libs_of "$p"); do add_chain "$l"; done
  elif head -c 2 "$p" | grep -q '#!'; then
    t="$(head -n 1 "$p" | sed 's/^#![ ]*//; s/[ ].*$//')"
    case "$t" in /*) [ -e "$t" ] && add_chain "$t" ;; esac
  fi
  # Interpreters and tools that need their whole tree.
  case "$p" in
    */python3.[0-9]*)
      v="$(basename "$p")"
      [ -d "/usr/lib/$v" ] && echo "/usr/lib/$v" >>"$DIRS"
      [ -d /usr/lib/python3/dist-packages/pip ] && echo /usr/lib/python3/dist-packages/pip >>"$DIRS"
      for so in "/usr/lib/$v"/lib-dynload/*.so; do
        [ -f "$so" ] && for l in $(libs_of "$so"); do add_chain "$l"; done
      done
      ;;
    */node_modules/npm/*)
      echo "${p%%/node_modules/npm/*}/node_modules/npm" >>"$DIRS"
      ;;
    */bin/git)
      # Its sub-commands (git-remote-http for a push to the world's remote) and templates, with their libraries.
      [ -d /usr/lib/git-core ] && echo /usr/lib/git-core >>"$DIRS"
      [ -d /usr/share/git-core ] && echo /usr/share/git-core >>"$DIRS"
      for so in /usr/lib/git-core/*; do
        [ -f "$so" ] && head -c 4 "$so" | grep -q 'ELF' && for l in $(libs_of "$so"); do add_chain "$l"; done
      done
      ;;
  esac
  return 0
}

# The file a name finds on the process runner's PATH (shell builtins do not count).
find_tool() {
  local d
  for d in $(echo "$HOST_PATH" | tr ':' ' '); do
    if [ -x "$d/$1" ] && [ ! -d "$d/$1" ]; then
      echo "$d/$1"
      return 0
    fi
  done
  return 1
}

for tool in $TOOLS; do
  if p="$(find_tool "$tool")"; then
    add_chain "$(realpath -ms "$p")"
  else
    log "not on this machine (busybox stands in where it has it): $tool"
  fi
done
for l in $(libs_of "$NODE_BIN"); do add_chain "$l"; done
add_chain /usr/bin/env

sort -u -o "$LIST" "$LIST"
sort -u -o "$DIRS" "$DIRS"

# Content hash: this script, the tool list, node, busybox and every file copied (size and mtime).
HASH="$(
  {
    cat "$0"
    echo "$TOOLS"
    sha256sum "$NODE_BIN" "$BUSYBOX"
    while read -r f; do stat -c '%n %s %Y' "$f"; done <"$LIST"
    while read -r d; do
      echo "$d"
      find "$d" -printf '%P %s %T@\n' | sort
    done <"$DIRS"
  } | sha256sum | cut -c1-32
)"

CURRENT="$(docker image inspect -f '{{ index .Config.Labels "harness-risk.content" }}' "$IMAGE" 2>/dev/null || true)"
if [ "$CURRENT" = "$HASH" ] && [ "${HR_IMAGE_FORCE:-}" != 1 ]; then
  log "$IMAGE is current (content $HASH)"
  exit 0
fi

mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/usr/local/bin" "$ROOT/etc" \
  "$ROOT/tmp" "$ROOT/root" "$ROOT/home/harness" "$ROOT/trial" "$ROOT/opt/hr/ro" "$ROOT/proc" "$ROOT/sys" \
  "$ROOT/dev" "$ROOT/run" "$ROOT/var/tmp"
chmod 1777 "$ROOT/tmp" "$ROOT/var/tmp"
chmod 0700 "$ROOT/root"

# 1. busybox for everything (replaced below wherever this machine has the real tool).
cp "$BUSYBOX" "$ROOT/bin/busybox"
for app in $("$BUSYBOX" --list-full 2>/dev/null || "$BUSYBOX" --list | sed 's|^|bin/|'); do
  case "$app" in bin/busybox) continue ;; esac
  mkdir -p "$ROOT/$(dirname "$app")"
  ln -sf /bin/busybox "$ROOT/$app"
done

# 2. this machine's tools, libraries and trees, at their own paths.
while read -r f; do
  mkdir -p "$ROOT$(dirname "$f")"
  rm -f "$ROOT$f"
  cp -P -p "$f" "$ROOT$f"
done <"$LIST"
while read -r d; do
  (cd / && tar -cf - --exclude='__pycache__' --exclude="${d#/}/test" --exclude="${d#/}/idlelib" \
    --exclude="${d#/}/tkinter" --exclude="${d#/}/turtledemo" --exclude="${d#/}/ensurepip" \
    --exclude="${d#/}/lib2to3/tests" "${d#/}") | tar -C "$ROOT" -xf -
done <"$DIRS"

# 3. node.
rm -f "$ROOT/usr/local/bin/node" "$ROOT/usr/bin/node"
cp "$NODE_BIN" "$ROOT/usr/local/bin/node"
ln -s /usr/local/bin/node "$ROOT/usr/bin/node"

# 4. users and name service.
cat >"$ROOT/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/sh
harness:x:1000:1000:harness:/home/harness:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
P
cat >"$ROOT/etc/group" <<'G'
root:x:0:
harness:x:1000:
nogroup:x:65534:
G
echo 'hosts: files dns' >"$ROOT/etc/nsswitch.conf"
chown 1000:1000 "$ROOT/home/harness"

OLD_ID="$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
log "importing $IMAGE (node $("$NODE_BIN" --version), $(wc -l <"$LIST") files and $(wc -l <"$DIRS") trees from this machine, content $HASH)"
tar --numeric-owner -C "$ROOT" -cf - . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /tmp' \
  --change 'CMD ["/bin/sh"]' \
  --change "LABEL harness-risk.content=$HASH" \
  --change 'LABEL harness-risk.user=1000:1000' \
  - "$IMAGE" >/dev/null
# The previous build, now untagged, is of no use.
NEW_ID="$(docker image inspect -f '{{.Id}}' "$IMAGE")"
if [ -n "$OLD_ID" ] && [ "$OLD_ID" != "$NEW_ID" ]; then docker rmi "$OLD_ID" >/dev/null 2>&1 || true; fi
docker run --rm --network none "$IMAGE" node -e 'process.stdout.write("node " + process.version + " ok\n")' >&2
log "built $IMAGE ($(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{ printf "%d MB", $1 / 1e6 }'))"
