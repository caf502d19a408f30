#!/usr/bin/env bash
# Makes sure Debian's chromium is at /usr/bin/chromium for the viewer's browser tests
# (packages/cli/test/viewer, bench/viewer-open.ts drive it through playwright-core; playwright's
# own browser download does not work on these machines). Idempotent and quiet when present.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "ensure-chromium: /usr/bin/chromium missing, installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: apt-get installed chromium but /usr/bin/chromium is still missing" >&2
  exit 1
fi
echo "ensure-chromium: $(/usr/bin/chromium --version 2>/dev/null || echo chromium installed)" >&2
