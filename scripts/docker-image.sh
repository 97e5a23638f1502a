#!/bin/sh
# Builds the local test image for `runner: docker` without any registry: a root filesystem holding
# this machine's node binary and the shared libraries it links, a static busybox (sh, cat, ls, env…),
# /etc/passwd with a non-root user `harness` (uid 1000), and /tmp; then `docker import`.
# Idempotent: skipped when the image exists with the same content hash label.
# Usage: sh scripts/docker-image.sh [IMAGE]     (default harness-risk/node:local; env NODE_BIN, BUSYBOX_BIN)
set -eu

IMAGE="${1:-${HR_DOCKER_IMAGE:-harness-risk/node:local}}"
NODE_BIN="${NODE_BIN:-$(command -v node)}"
NODE_BIN="$(readlink -f "$NODE_BIN")"

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

# Shared libraries node needs, resolved to real files (the dynamic loader included).
LIBS="$(ldd "$NODE_BIN" | awk '/=>/ { if ($3 ~ /^\//) print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | sort -u)"

# Content hash: this script, the binaries and the libraries. Same inputs → same image → skip.
HASH="$( { cat "$0"; sha256sum "$NODE_BIN" "$BUSYBOX"; for l in $LIBS; do sha256sum "$(readlink -f "$l")"; done; } \
  | sha256sum | cut -c1-32)"

CURRENT="$(docker image inspect -f '{{ index .Config.Labels "harness-risk.content" }}' "$IMAGE" 2>/dev/null || true)"
if [ "$CURRENT" = "$HASH" ]; then
  log "$IMAGE is current (content $HASH)"
  exit 0
fi

ROOT="$(mktemp -d /tmp/hr-rootfs.XXXXXX)"
trap 'rm -rf "$ROOT"' EXIT INT TERM

mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/usr/local/bin" "$ROOT/etc" \
  "$ROOT/tmp" "$ROOT/root" "$ROOT/home/harness" "$ROOT/trial" "$ROOT/opt/hr/ro" "$ROOT/proc" "$ROOT/sys" \
  "$ROOT/dev" "$ROOT/run" "$ROOT/var/tmp"
chmod 1777 "$ROOT/tmp" "$ROOT/var/tmp"
chmod 0700 "$ROOT/root"

cp "$NODE_BIN" "$ROOT/usr/local/bin/node"
for l in $LIBS; do
  mkdir -p "$ROOT$(dirname "$l")"
  cp -L "$l" "$ROOT$l"
done

cp "$BUSYBOX" "$ROOT/bin/busybox"
for app in $("$BUSYBOX" --list-full 2>/dev/null || "$BUSYBOX" --list | sed 's|^|bin/|'); do
  case "$app" in bin/busybox) continue ;; esac
  [ -e "$ROOT/$app" ] && continue
  mkdir -p "$ROOT/$(dirname "$app")"
  ln -s /bin/busybox "$ROOT/$app"
done

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

log "importing $IMAGE (node $("$NODE_BIN" --version), busybox $BUSYBOX, content $HASH)"
tar --numeric-owner -C "$ROOT" -cf - . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /tmp' \
  --change 'CMD ["/bin/sh"]' \
  --change "LABEL harness-risk.content=$HASH" \
  --change 'LABEL harness-risk.user=1000:1000' \
  - "$IMAGE" >/dev/null
docker run --rm --network none "$IMAGE" node -e 'process.stdout.write("node " + process.version + " ok\n")' >&2
log "built $IMAGE"
