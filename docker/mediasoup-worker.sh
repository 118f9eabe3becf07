#!/usr/bin/env bash
# Puts a mediasoup worker at OUT for the Docker image, the same two ways as
# scripts/setup.sh: "prebuilt" downloads mediasoup's official worker (needs
# mediasoup's release downloads); "source" builds it from the npm tarball over Debian's libraries
# (scripts/mediasoup/build-worker.sh, about 5 minutes on 2 cores, offline).
# Usage: mediasoup-worker.sh prebuilt|source MEDIASOUP_PACKAGE_JSON OUT
set -euo pipefail
HOW=${1:?prebuilt or source}
PKG=${2:?path of mediasoup\'s package.json}
OUT=${3:?output path}
HERE=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "[mediasoup-worker] $*" >&2; }

VERSION=$(node -p 'require(process.argv[1]).version' "$PKG")
# The worker exits 41 when started without mediasoup's environment: it runs.
runs() { "$1" >/dev/null 2>&1 || [ $? -eq 41 ]; }
mkdir -p "$(dirname "$OUT")"
export DEBIAN_FRONTEND=noninteractive

case $HOW in
  prebuilt)
    apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates curl >/dev/null
    repo=$(node -p 'require(process.argv[1]).repository.url.replace(/^git\+/, "").replace(/\.git$/, "")' "$PKG")
    arch=$(node -p process.arch)
    tmp=$(mktemp -d)
    # mediasoup names its builds by the kernel major of the machine that made them; any recent one runs here.
    for kernel in "$(uname -r | cut -d. -f1)" 6 5; do
      url="$repo/releases/download/$VERSION/mediasoup-worker-$VERSION-linux-$arch-kernel$kernel.tgz"
      if curl -fsSL --retry 2 -o "$tmp/w.tgz" "$url"; then
        tar xzf "$tmp/w.tgz" -C "$tmp"
        install -m 0755 "$tmp/mediasoup-worker" "$OUT"
        say "prebuilt worker $VERSION from $url"
        break
      fi
    done
    [ -x "$OUT" ] || { say "no prebuilt worker $VERSION for linux-$arch; build with --build-arg MEDIASOUP_WORKER=source"; exit 1; }
    ;;
  source)
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends build-essential pkg-config ninja-build perl python3 python3-venv cargo ca-certificates \
      libuv1-dev libsrtp2-dev libflatbuffers-dev flatbuffers-compiler libabsl-dev >/dev/null
    MS_VERSION=$VERSION OUT="$OUT" WORK=/tmp/mediasoup-build bash "$HERE/scripts/mediasoup/build-worker.sh"
    ;;
  *)
    say "unknown way '$HOW': use prebuilt or source"
    exit 2
    ;;
esac
runs "$OUT" || { say "the worker at $OUT does not run"; exit 1; }
