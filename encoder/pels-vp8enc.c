/*
 * pels-vp8enc: the stream's real-time VP8 encoder, which takes requests while
 * it runs.
 *
 *   stdin       raw I420 frames (yuv420p, planes packed), --width x --height
 *   stdout      IVF: a 32-byte file header, then each frame as it is encoded;
 *               pts counts input frames (time base 1/--fps)
 *   control fd  (--control-fd N) text lines, applied before the next frame:
 *                 keyframe        the next frame is a keyframe
 *                 bitrate KBPS    new target bitrate (layers at 1/4, 1/2, 1)
 *   stderr      errors, one line each
 *
 * The encoding is FFmpeg's libvpx wrapper with the options the server used
 * to give it (realtime, cpu-used -6, error resilient, no lag, CBR, a fixed
 * keyframe interval, one thread, ts_layering_mode=3): three temporal layers
 * in the 4-frame pattern 0,2,1,2 with these buffer flags:
 *   TID 0: references LAST, updates LAST
 *   TID 2: references LAST, updates nothing
 *   TID 1: references LAST, updates GOLDEN
 *   TID 2: references GOLDEN, updates nothing
 * The server reads the layer back from the frame header's refresh flags
 * (LAST: 0, GOLDEN only: 1, none: 2). Every keyframe, periodic or requested,
 * starts the pattern again, so it is a TID 0 frame and 2,1,2,0 follow.
 * Periodic keyframes come --keyframe-interval frames after the last keyframe:
 * a requested one postpones the next. Without requests the output is the
 * wrapper's, bit for bit (libvpx forces its fixed-interval keyframes the same way).
 *
 * Exit status: 0 when stdin ends (the frames of a complete input are all
 * written), 1 on an encoder or I/O error, 2 on bad arguments or a bad request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

#define PROG "pels-vp8enc"
#define PERIOD 4
#define MAX_KBPS 100000
#define CONTROL_LINE_MAX 64

static const unsigned int LAYER_ID[PERIOD] = {0, 2, 1, 2};
static const vpx_enc_frame_flags_t LAYER_FLAGS[PERIOD] = {
    VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF,
    VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF,
    VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_ARF,
    VP8_EFLAG_NO_REF_LAST | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF,
};

struct settings {
  int width, height, fps, kbps, keyframe_interval, control_fd;
};

/* Requests read from the control channel, for the next frame. */
struct requests {
  int keyframe;
  int kbps; /* 0: no change */
};

struct control {
  int fd; /* -1: none, or closed by the other end */
  char line[CONTROL_LINE_MAX];
  size_t len;
};

static void fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(PROG ": ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(status);
}

static void fail_codec(vpx_codec_ctx_t *codec, const char *what) {
  const char *detail = vpx_codec_error_detail(codec);
  fail(1, "%s: %s%s%s", what, vpx_codec_error(codec), detail ? ": " : "", detail ? detail : "");
}

static int parse_int(const char *name, const char *text, int min, int max) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < min || v > max) fail(2, "%s must be an integer in [%d, %d], got \"%s\"", name, min, max, text);
  return (int)v;
}

static void usage(void) {
  fail(2, "usage: " PROG " --width W --height H --fps F --kbps B --keyframe-interval K [--control-fd N] < raw-i420 > ivf");
}

static struct settings parse_args(int argc, char **argv) {
  static const struct option options[] = {
      {"width", required_argument, 0, 'w'},  {"height", required_argument, 0, 'h'},
      {"fps", required_argument, 0, 'f'},    {"kbps", required_argument, 0, 'b'},
      {"keyframe-interval", required_argument, 0, 'k'}, {"control-fd", required_argument, 0, 'c'},
      {0, 0, 0, 0},
  };
  struct settings s = {0, 0, 0, 0, 0, -1};
  int opt;
  while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
    switch (opt) {
      case 'w': s.width = parse_int("--width", optarg, 2, 16382); break;
      case 'h': s.height = parse_int("--height", optarg, 2, 16382); break;
      case 'f': s.fps = parse_int("--fps", optarg, 1, 240); break;
      case 'b': s.kbps = parse_int("--kbps", optarg, 4, MAX_KBPS); break;
      case 'k': s.keyframe_interval = parse_int("--keyframe-interval", optarg, PERIOD, 100000); break;
      case 'c': s.control_fd = parse_int("--control-fd", optarg, 3, 1023); break;
      default: usage();
    }
  }
  if (optind < argc || !s.width || !s.height || !s.fps || !s.kbps || !s.keyframe_interval) usage();
  /* Packed I420 has chroma planes of half the size exactly only for even sizes. */
  if (s.width % 2 || s.height % 2) fail(2, "--width and --height must be even, got %dx%d", s.width, s.height);
  /* Periodic keyframes then fall where the pattern starts again anyway. */
  if (s.keyframe_interval % PERIOD) fail(2, "--keyframe-interval must be a multiple of %d, got %d", PERIOD, s.keyframe_interval);
  return s;
}

/* The whole stream at kbps, its layers at 1/4 and 1/2 of it (cumulative, as libvpx counts them). */
static void set_bitrate(vpx_codec_enc_cfg_t *cfg, int kbps) {
  cfg->rc_target_bitrate = (unsigned int)kbps;
  cfg->ts_target_bitrate[0] = (unsigned int)(kbps + 2) / 4;
  cfg->ts_target_bitrate[1] = (unsigned int)(kbps + 1) / 2;
  cfg->ts_target_bitrate[2] = (unsigned int)kbps;
}

static void configure(vpx_codec_enc_cfg_t *cfg, const struct settings *s) {
  vpx_codec_err_t err = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0);
  if (err) fail(1, "cannot get the VP8 encoder's default configuration: %s", vpx_codec_err_to_string(err));
  cfg->g_w = (unsigned int)s->width;
  cfg->g_h = (unsigned int)s->height;
  cfg->g_timebase.num = 1;
  cfg->g_timebase.den = s->fps;
  /* libvpx's VP8 worker threads spin while they wait: one thread costs far less CPU at 30 fps. */
  cfg->g_threads = 1;
  cfg->g_error_resilient = VPX_ERROR_RESILIENT_DEFAULT;
  cfg->g_lag_in_frames = 0;
  cfg->g_pass = VPX_RC_ONE_PASS;
  cfg->rc_end_usage = VPX_CBR;
  cfg->rc_dropframe_thresh = 0;
  /* Periodic keyframes are forced here, counted from the last keyframe of any kind. */
  cfg->kf_mode = VPX_KF_DISABLED;
  cfg->ts_number_layers = 3;
  cfg->ts_periodicity = PERIOD;
  cfg->ts_rate_decimator[0] = 4;
  cfg->ts_rate_decimator[1] = 2;
  cfg->ts_rate_decimator[2] = 1;
  for (int i = 0; i < PERIOD; i++) cfg->ts_layer_id[i] = LAYER_ID[i];
  set_bitrate(cfg, s->kbps);
}

static void put_le16(uint8_t *p, unsigned int v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void write_all(const uint8_t *buf, size_t len) {
  while (len) {
    ssize_t n = write(STDOUT_FILENO, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(1, "cannot write to stdout: %s", strerror(errno));
    buf += n;
    len -= (size_t)n;
  }
}

static void write_ivf_header(const struct settings *s) {
  uint8_t h[32] = {'D', 'K', 'I', 'F'};
  put_le16(h + 4, 0);  /* version */
  put_le16(h + 6, 32); /* header size */
  memcpy(h + 8, "VP80", 4);
  put_le16(h + 12, (unsigned int)s->width);
  put_le16(h + 14, (unsigned int)s->height);
  put_le32(h + 16, (uint32_t)s->fps); /* time base denominator */
  put_le32(h + 20, 1);                /* numerator */
  put_le32(h + 24, 0);                /* frame count: unknown on a pipe */
  write_all(h, sizeof h);
}

/* Writes the encoder's pending frames, one write each; returns the pts of the last keyframe among them, or -1. */
static int64_t write_frames(vpx_codec_ctx_t *codec, uint8_t **buf, size_t *cap) {
  const vpx_codec_cx_pkt_t *pkt;
  vpx_codec_iter_t iter = NULL;
  int64_t keyframe = -1;
  while ((pkt = vpx_codec_get_cx_data(codec, &iter))) {
    if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
    size_t size = pkt->data.frame.sz;
    if (12 + size > *cap) {
      *cap = 12 + size;
      *buf = realloc(*buf, *cap);
      if (!*buf) fail(1, "out of memory for a frame of %zu bytes", size);
    }
    put_le32(*buf, (uint32_t)size);
    put_le64(*buf + 4, (uint64_t)pkt->data.frame.pts);
    memcpy(*buf + 12, pkt->data.frame.buf, size);
    write_all(*buf, 12 + size);
    if (pkt->data.frame.flags & VPX_FRAME_IS_KEY) keyframe = pkt->data.frame.pts;
  }
  return keyframe;
}

/* Reads one frame; 0 when stdin has ended. */
static int read_frame(uint8_t *buf, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(STDIN_FILENO, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(1, "cannot read stdin: %s", strerror(errno));
    if (n == 0) {
      if (got) fprintf(stderr, PROG ": input ended inside a frame (%zu of %zu bytes); that frame is dropped\n", got, size);
      return 0;
    }
    got += (size_t)n;
  }
  return 1;
}

static void apply_line(const char *line, struct requests *req) {
  if (!strcmp(line, "keyframe")) {
    req->keyframe = 1;
  } else if (!strncmp(line, "bitrate ", 8)) {
    req->kbps = parse_int("the bitrate of a request", line + 8, 4, MAX_KBPS);
  } else {
    fail(2, "unknown request on the control channel: \"%s\"", line);
  }
}

/* Takes every complete request line that has arrived, without waiting. */
static void read_requests(struct control *c, struct requests *req) {
  while (c->fd >= 0) {
    char chunk[256];
    ssize_t n = read(c->fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) fail(1, "cannot read the control channel: %s", strerror(errno));
    if (n == 0) {
      /* The other end closed it: no more requests, encoding goes on. */
      close(c->fd);
      c->fd = -1;
      return;
    }
    for (ssize_t i = 0; i < n; i++) {
      if (chunk[i] == '\n') {
        c->line[c->len] = '\0';
        apply_line(c->line, req);
        c->len = 0;
      } else if (c->len + 1 < sizeof c->line) {
        c->line[c->len++] = chunk[i];
      } else {
        fail(2, "a request on the control channel is longer than %d bytes", CONTROL_LINE_MAX - 1);
      }
    }
  }
}

int main(int argc, char **argv) {
  struct settings s = parse_args(argc, argv);
#ifdef __linux__
  /* Never outlive the server that started us. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  /* A closed stdout is reported as a write error, not a silent death. */
  signal(SIGPIPE, SIG_IGN);

  /* Best effort: a whole raw frame fits in the input pipe, so FFmpeg writes it without waiting for us (half the context switches). */
  size_t frame_size = (size_t)s.width * s.height * 3 / 2;
#ifdef F_SETPIPE_SZ
  fcntl(STDIN_FILENO, F_SETPIPE_SZ, (int)(frame_size < 1048576 ? frame_size : 1048576));
#endif

  struct control control = {s.control_fd, {0}, 0};
  if (control.fd >= 0) {
    int flags = fcntl(control.fd, F_GETFL);
    if (flags < 0 || fcntl(control.fd, F_SETFL, flags | O_NONBLOCK) < 0) fail(2, "--control-fd %d is not open: %s", control.fd, strerror(errno));
  }

  vpx_codec_enc_cfg_t cfg;
  configure(&cfg, &s);
  vpx_codec_ctx_t codec;
  if (vpx_codec_enc_init(&codec, vpx_codec_vp8_cx(), &cfg, 0)) fail_codec(&codec, "cannot start the VP8 encoder");
  /* Negative: a fixed speed 6 in real-time mode (a positive value lets libvpx vary it with the time frames take). */
  if (vpx_codec_control(&codec, VP8E_SET_CPUUSED, -6)) fail_codec(&codec, "cannot set cpu-used");

  uint8_t *raw = malloc(frame_size);
  size_t out_cap = 64 * 1024;
  uint8_t *out = malloc(out_cap);
  if (!raw || !out) fail(1, "out of memory");
  vpx_image_t img;
  if (!vpx_img_wrap(&img, VPX_IMG_FMT_I420, (unsigned int)s.width, (unsigned int)s.height, 1, raw)) fail(1, "cannot wrap the frame buffer");

  write_ivf_header(&s);
  int position = 0;       /* in the layer pattern */
  int64_t last_key = 0;   /* libvpx makes the first frame a keyframe */
  for (int64_t pts = 0; read_frame(raw, frame_size); pts++) {
    struct requests req = {0, 0};
    read_requests(&control, &req);
    if (req.kbps) {
      set_bitrate(&cfg, req.kbps);
      if (vpx_codec_enc_config_set(&codec, &cfg)) fail_codec(&codec, "cannot change the bitrate");
    }
    vpx_enc_frame_flags_t flags = LAYER_FLAGS[position];
    if (req.keyframe || pts - last_key >= s.keyframe_interval) {
      position = 0;
      flags = VPX_EFLAG_FORCE_KF | LAYER_FLAGS[0];
    }
    if (vpx_codec_control(&codec, VP8E_SET_TEMPORAL_LAYER_ID, (int)LAYER_ID[position])) fail_codec(&codec, "cannot set the temporal layer");
    if (vpx_codec_encode(&codec, &img, pts, 1, flags, VPX_DL_REALTIME)) fail_codec(&codec, "cannot encode a frame");
    int64_t key = write_frames(&codec, &out, &out_cap);
    if (key >= 0) {
      /* A keyframe libvpx chose itself (the first frame) restarts the pattern too. */
      last_key = key;
      position = 1;
    } else {
      position = (position + 1) % PERIOD;
    }
  }
  if (vpx_codec_encode(&codec, NULL, 0, 1, 0, VPX_DL_REALTIME)) fail_codec(&codec, "cannot flush the encoder");
  write_frames(&codec, &out, &out_cap);
  vpx_codec_destroy(&codec);
  free(raw);
  free(out);
  return 0;
}
