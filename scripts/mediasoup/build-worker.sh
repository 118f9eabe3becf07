#!/usr/bin/env bash
# Builds mediasoup-worker $MS_VERSION from the npm tarball without any download
# beyond Debian, PyPI, crates.io and npm, and installs it as $OUT.
#
# mediasoup's meson build fetches its dependencies (wraps) from the Internet.
# Here each wrap is replaced by a stand-in subproject over a Debian package
# (libuv, flatbuffers, abseil, libsrtp2 with a source patch), plus OpenSSL 3.0.8
# built static from the crates.io openssl-src crate: with Debian's libssl 3.0.x
# the worker crashes in the DTLS handshake with Chromium.
set -euo pipefail
MS_VERSION=${MS_VERSION:?}
OUT=${OUT:?}
WORK=${WORK:-$(dirname "$OUT")/build}
HERE=$(cd "$(dirname "$0")" && pwd)
JOBS=$(nproc)
say() { echo "[mediasoup-worker] $*" >&2; }

mkdir -p "$WORK" && cd "$WORK"

say "meson from PyPI (Debian's is too old)"
[ -x venv/bin/meson ] || { python3 -m venv venv && venv/bin/pip install -q meson==1.12.0; }

say "sources of mediasoup $MS_VERSION from npm"
[ -d package ] || { npm pack -q "mediasoup@$MS_VERSION" >/dev/null && tar xzf "mediasoup-$MS_VERSION.tgz"; }
WK=$WORK/package/worker
SUB=$WK/subprojects

if [ ! -f ossl/lib/libssl.a ]; then
  say "OpenSSL 3.0.8 (static) from crates.io openssl-src"
  mkdir -p sslsrc/src && touch sslsrc/src/lib.rs
  printf '[package]\nname="sslsrc"\nversion="0.0.0"\nedition="2021"\n[dependencies]\nopenssl-src="=300.0.13"\n' > sslsrc/Cargo.toml
  (cd sslsrc && cargo vendor -q --versioned-dirs vendor >/dev/null)
  (cd sslsrc/vendor/openssl-src-*/openssl \
    && ./Configure linux-x86_64 no-shared no-tests no-engine no-dso no-module --prefix="$WORK/ossl" --libdir=lib >/dev/null \
    && make -s -j"$JOBS" build_libs >/dev/null && make -s install_dev >/dev/null)
fi

say "stand-in subprojects"
# Directory names must match the wraps' directory= entries of this mediasoup version.
wrapdir() { sed -n 's/^directory *= *//p' "$SUB/$1.wrap"; }
UV=$SUB/$(wrapdir libuv); SSL=$SUB/$(wrapdir openssl); SRTP=$SUB/$(wrapdir libsrtp3)
FB=$SUB/$(wrapdir flatbuffers); ABSL=$SUB/$(wrapdir abseil-cpp); UD=$SUB/$(wrapdir unordered-dense)
for d in "$UV" "$SSL" "$SRTP" "$FB" "$ABSL"; do mkdir -p "$d"; echo 'int pels_subproject_stub;' > "$d/stub.c"; done
rm -rf "$SSL/inst" && cp -a "$WORK/ossl" "$SSL/inst"
cat > "$UV/meson.build" <<'M'
project('libuv', 'c', version: '1.44.2')
libuv_dep = dependency('libuv', version: '>=1.44')
libuv = static_library('uv_stub', 'stub.c')
M
printf "option('build_tests', type: 'boolean', value: false)\noption('build_benchmarks', type: 'boolean', value: false)\n" > "$UV/meson_options.txt"
cat > "$SSL/meson.build" <<'M'
project('openssl', 'c', version: '3.0.8')
cc = meson.get_compiler('c')
libdir = meson.current_source_dir() / 'inst' / 'lib'
inc = include_directories('inst/include')
libcrypto_dep = declare_dependency(include_directories: inc, dependencies: [cc.find_library('crypto', dirs: [libdir], static: true), dependency('threads'), cc.find_library('dl')])
libssl_dep = declare_dependency(include_directories: inc, dependencies: [cc.find_library('ssl', dirs: [libdir], static: true), libcrypto_dep])
openssl_dep = libssl_dep
libcrypto_lib = static_library('crypto_stub', 'stub.c')
libssl_lib = static_library('ssl_stub', 'stub.c')
M
cat > "$SRTP/meson.build" <<'M'
project('libsrtp3', 'c', version: '2.5.0')
libsrtp3_dep = declare_dependency(dependencies: dependency('libsrtp2', version: '>=2.4'), compile_args: ['-I/usr/include/srtp2'])
libsrtp3 = static_library('srtp_stub', 'stub.c')
M
printf "option('crypto-library', type: 'string', value: 'openssl')\noption('crypto-library-kdf', type: 'feature', value: 'disabled')\noption('tests', type: 'feature', value: 'disabled')\n" > "$SRTP/meson_options.txt"
cat > "$FB/meson.build" <<'M'
project('flatbuffers', 'c', 'cpp', version: '2.0.8')
flatbuffers_dep = dependency('flatbuffers')
flatbuffers_lib = static_library('flatbuffers_stub', 'stub.c')
M
cat > "$ABSL/meson.build" <<'M'
project('abseil-cpp', 'c', 'cpp', version: '20220623-system')
absl_container_dep = declare_dependency(dependencies: [dependency('absl_flat_hash_map'), dependency('absl_flat_hash_set'), dependency('absl_inlined_vector')])
absl_strings_dep = declare_dependency(dependencies: [dependency('absl_strings'), dependency('absl_str_format')])
absl_types_dep = declare_dependency(dependencies: [dependency('absl_optional'), dependency('absl_variant'), dependency('absl_span')])
absl_container_lib = static_library('absl_container_stub', 'stub.c')
M
mkdir -p "$UD/include/ankerl"
cat > "$UD/meson.build" <<'M'
project('ankerl-unordered-dense', 'cpp', version: '4.8.1-std')
ankerl_unordered_dense_dep = declare_dependency(include_directories: include_directories('include'))
M
# mediasoup uses only map, set and hash of unordered_dense: the std containers do.
cat > "$UD/include/ankerl/unordered_dense.h" <<'M'
#ifndef PELS_ANKERL_UNORDERED_DENSE_STD_H
#define PELS_ANKERL_UNORDERED_DENSE_STD_H
#include <functional>
#include <unordered_map>
#include <unordered_set>
namespace ankerl { namespace unordered_dense {
template <class T, class Enable = void> struct hash : std::hash<T> {};
template <class K, class V, class H = hash<K>, class E = std::equal_to<K>, class A = std::allocator<std::pair<const K, V>>>
using map = std::unordered_map<K, V, H, E, A>;
template <class K, class H = hash<K>, class E = std::equal_to<K>, class A = std::allocator<K>>
using set = std::unordered_set<K, H, E, A>;
}}
#endif
M

if ! grep -q "libsrtp2 (Debian" "$WK/src/RTC/SrtpSession.cpp"; then
  say "porting SrtpSession to libsrtp2"
  python3 "$HERE/patch-srtp2.py" "$WK"
  sed -i 's/srtp_stream_remove(/srtp_remove_stream(/' "$WK/include/RTC/SrtpSession.hpp"
fi

say "compiling (about 5 minutes on 2 cores)"
cd "$WK"
[ -d out/Release/meson-info ] || ../../venv/bin/meson setup --wrap-mode=nodownload --buildtype release -Db_ndebug=true \
  -Dms_use_builtin_bwe=false out/Release >/dev/null
ninja -C out/Release -j"$JOBS" mediasoup-worker >"$WORK/ninja.log" 2>&1 || { tail -30 "$WORK/ninja.log" >&2; exit 1; }
install -m 0755 out/Release/mediasoup-worker "$OUT"
say "installed $OUT"
