#!/usr/bin/env bash
# Runs a command as on a fresh Debian + Node 20 machine (the README's `npm ci && npm test` with Node
# alone): no bubblewrap, no Docker client or daemon, no harness installs, no HR_* switches, an empty
# HOME (no git identity, no caches). Used to check that the tests needing those skip, with a reason,
# instead of failing:   sudo bash scripts/fresh-machine.sh npx vitest run
#
# Root only: bwrap and docker are hidden by overlay mounts (whiteouts) in a private mount namespace,
# since a PATH without them is not enough (src/runner/contain/host.ts also looks for /usr/bin/bwrap),
# and the Docker socket by a bind mount of /dev/null (a running daemon stays running for the rest of
# the machine). Nothing outside the namespace changes.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "fresh-machine.sh: needs root (it hides binaries with overlay mounts in a private mount namespace)" >&2
  exit 2
fi
if [ "${HR_FRESH_MACHINE:-}" != 1 ]; then
  exec unshare --mount --propagation private env HR_FRESH_MACHINE=1 bash "$0" "$@"
fi

work=$(mktemp -d /tmp/hr-fresh-machine-XXXXXX)
# Hides `names` in `dir`: an overlay whose upper layer holds a whiteout (a 0/0 device) for each.
hide() {
  local dir=$1 up work_dir found=""
  shift
  up="$work/up${dir//\//_}"
  work_dir="$work/wk${dir//\//_}"
  mkdir -p "$up" "$work_dir"
  for n in "$@"; do
    if [ -e "$dir/$n" ] || [ -L "$dir/$n" ]; then
      mknod "$up/$n" c 0 0
      found="$found $n"
    fi
  done
  [ -n "$found" ] || return 0
  mount -t overlay overlay -o "lowerdir=$dir,upperdir=$up,workdir=$work_dir" "$dir"
  echo "fresh-machine: hid$found in $dir" >&2
}
docker_bins=(docker dockerd docker-init docker-proxy containerd containerd-shim containerd-shim-runc-v1 containerd-shim-runc-v2)
hide /usr/bin bwrap "${docker_bins[@]}"
hide /usr/sbin bwrap "${docker_bins[@]}"
hide /usr/local/bin bwrap "${docker_bins[@]}"
hide /usr/local/sbin bwrap "${docker_bins[@]}"
# No daemon either: connecting to a socket path that is /dev/null is refused, as with no daemon.
for sock in /var/run/docker.sock /run/docker.sock; do
  if [ -S "$sock" ]; then
    mount --bind /dev/null "$sock"
    echo "fresh-machine: hid the Docker daemon socket $sock" >&2
  fi
done
for b in bwrap docker; do
  if command -v "$b" >/dev/null; then
    echo "fresh-machine: $b is still found at $(command -v "$b")" >&2
    exit 1
  fi
done

mkdir -p "$work/home"
# Only what a login shell of a fresh machine has; no HR_*, HARNESS_RISK_*, CI or DOCKER_* variables.
exec env -i \
  HOME="$work/home" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG="${LANG:-C.UTF-8}" \
  TERM="${TERM:-dumb}" \
  TMPDIR=/tmp \
  "$@"
