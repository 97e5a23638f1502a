#!/bin/sh
# Makes a Docker daemon reachable on this machine for `runner: docker` and its tests.
# Idempotent: installs docker.io from Debian packages only when no docker CLI/daemon is present,
# starts dockerd in the background only when the socket does not answer, then waits up to 60 s.
# Usage: sh scripts/docker-setup.sh            (env: DOCKER_SOCK, default /var/run/docker.sock)
set -eu

SOCK="${DOCKER_SOCK:-/var/run/docker.sock}"
LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"

log() { echo "docker-setup: $*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else
    log "need root for: $*"; return 1; fi
}

ping_sock() {
  # The daemon answers GET /_ping with OK; curl is optional, the docker CLI is the fallback.
  [ -S "$SOCK" ] || return 1
  if command -v curl >/dev/null 2>&1; then
    [ "$(curl -s --max-time 3 --unix-socket "$SOCK" http://localhost/_ping 2>/dev/null)" = OK ] && return 0
  fi
  DOCKER_HOST="unix://$SOCK" docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

dockerd_running() { pgrep -x dockerd >/dev/null 2>&1 || pidof dockerd >/dev/null 2>&1; }

if ping_sock; then
  log "daemon already answers at $SOCK"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "installing docker.io from Debian packages"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

# Start dockerd when none runs (a daemon still shutting down is waited for, then replaced).
started=0
i=0
while [ $i -lt 60 ]; do
  if ping_sock; then
    log "daemon ready at $SOCK after ${i}s"
    exit 0
  fi
  if [ "$started" = 0 ] && ! dockerd_running; then
    # A stale socket file from a dead daemon would make dockerd refuse to start.
    [ -S "$SOCK" ] && as_root rm -f "$SOCK"
    log "starting dockerd (log: $LOG)"
    as_root sh -c "nohup dockerd --host=unix://$SOCK >'$LOG' 2>&1 &"
    started=1
  fi
  i=$((i + 1))
  sleep 1
done
log "dockerd did not answer at $SOCK within 60 s; last log lines:"
tail -n 20 "$LOG" >&2 2>/dev/null || true
exit 1
