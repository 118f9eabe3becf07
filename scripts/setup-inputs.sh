#!/usr/bin/env bash
# Prints one hash of every file scripts/setup.sh builds or installs from (the
# lockfile, the setup scripts, the mediasoup version, the encoder's, the
# synthetic receivers' and the SRT listener's source). Contents, not times: a
# fresh checkout or a rebase that changes none of them needs no new setup.
cd "$(dirname "$0")/.."
find package-lock.json scripts/setup.sh scripts/mediasoup server/package.json encoder/pels-vp8enc.c encoder/Makefile receivers srt \
  -type f -not -path '*/out/*' -not -path receivers/receivers 2>/dev/null | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
