#!/usr/bin/env bash
# Headless Chromium for the browser half of the OAuth tests (Debian's
# package; playwright-core drives it, it downloads no browser of its own).
# Does nothing when chromium is already installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing; run as root or: sudo apt-get install -y chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
chromium --version
