#!/usr/bin/env bash
# Podman for the container tests, on a fresh Debian machine as root:
# install podman and runc, make runc the OCI runtime, and start the API
# service (Docker-compatible and libpod API on one socket).
#
# Source it (`. .ci/setup-podman.sh`) so that GATEWAY_TEST_PODMAN_SOCKET is
# exported to the tests (it also writes the path to .tmp/podman-socket). The
# socket is deliberately not at a well-known path: only the tests that ask for
# Podman use it; every other test keeps running bare processes.
set -euo pipefail

# catatonit is the init process of `--init` (the Debian package only recommends it).
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v catatonit >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends podman runc uidmap slirp4netns fuse-overlayfs catatonit >/dev/null
fi

# runc rather than crun: the runtime these tests are written and checked against.
mkdir -p /etc/containers
conf=/etc/containers/containers.conf
if ! grep -qs '^runtime *= *"runc"' "$conf"; then
  if grep -qs '^\[engine\]' "$conf"; then
    sed -i '/^\[engine\]/a runtime = "runc"' "$conf"
  else
    printf '\n[engine]\nruntime = "runc"\n' >>"$conf"
  fi
fi

sock_dir="$(pwd)/.tmp/podman"
mkdir -p "$sock_dir"
sock="$sock_dir/podman.sock"
if ! curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1; then
  rm -f "$sock"
  nohup podman system service --time=0 "unix://$sock" >"$sock_dir/service.log" 2>&1 &
  for _ in $(seq 1 50); do
    curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.2
  done
fi
curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null
echo "$sock" >"$(pwd)/.tmp/podman-socket"
export GATEWAY_TEST_PODMAN_SOCKET="$sock"
podman --version
echo "podman API on $sock"
