#!/usr/bin/env bash
# The PELS bottleneck on a real kernel: a router on DEV's egress with a PELS
# queue (strict priority green AF41 > yellow AF42 > red AF43) and an Internet
# queue (everything else), sharing the link by weight when both are busy
# (paper section 4.1: 50% each).
#
#   1: htb, default -> 1:20
#   `-1:1 rate C
#      |- 1:10 PELS queue     rate C*(1-w) ceil C
#      |    with prio:  10: prio, bands 1/2/3 = green/yellow/red (true strict priority)
#      |    without:    1:11/1:12/1:13 htb classes prio 0/1/2 (near-strict, the testbed's design)
#      `- 1:20 Internet queue rate C*w ceil C
#
# Leaf queues are drop-tail FIFOs; with netem they are netem queues, which
# add LOSS_PCT random loss and DELAY_MS delay. Green's FIFO counts bytes, the
# others packets: the sound is green too, and its small packets would each
# take a full packet's room while every viewer's keyframe (one encoder frame
# serves them all) arrives at once. Without netem, random loss is a
# classic BPF filter sending the chosen packets to a blackhole class, and a
# delay cannot be made. The HTB-only variant is what e2e/src/net/pelsBottleneck.ts
# builds for the testbed on kernels without prio and netem.
#
# MODE=best-effort puts all UDP (video and RTCP) in one FIFO whatever its DSCP.
#
# Usage: pels-router.sh apply|clear|show|run [DEV]
#   DEV defaults to the interface of the default route. `run` applies, prints
#   the queue counters every STATS_INTERVAL_S, and clears on SIGTERM/SIGINT.
# Settings (environment):
#   CAPACITY_KBIT (2000), MODE (pels|best-effort), INTERNET_SHARE (0.5),
#   LOSS_PCT (0), DELAY_MS (0), QUEUE_PKTS (yellow, or best-effort's FIFO: about
#   500 ms of the link, >= 20), GREEN_QUEUE_BYTES (about 1 s of the link, >= 24000),
#   RED_QUEUE_PKTS (10), INTERNET_QUEUE_PKTS (100),
#   USE_PRIO, USE_NETEM (auto|yes|no: auto uses them when the kernel has them),
#   STATS_INTERVAL_S (10), DRY_RUN=1 (print the tc commands, change nothing).
set -euo pipefail

say() { echo "[pels-router] $*" >&2; }
die() { say "error: $*"; exit 2; }

CAPACITY_KBIT=${CAPACITY_KBIT:-2000}
MODE=${MODE:-pels}
INTERNET_SHARE=${INTERNET_SHARE:-0.5}
LOSS_PCT=${LOSS_PCT:-0}
DELAY_MS=${DELAY_MS:-0}
RED_QUEUE_PKTS=${RED_QUEUE_PKTS:-10}
INTERNET_QUEUE_PKTS=${INTERNET_QUEUE_PKTS:-100}
USE_PRIO=${USE_PRIO:-auto}
USE_NETEM=${USE_NETEM:-auto}
STATS_INTERVAL_S=${STATS_INTERVAL_S:-10}
DRY_RUN=${DRY_RUN:-0}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_number() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
# Rounded to an integer (%.0f: mawk's %d stops at 2^31).
calc() { awk "BEGIN { printf \"%.0f\", $1 }"; }

validate() {
  is_uint "$CAPACITY_KBIT" && [ "$CAPACITY_KBIT" -ge 64 ] && [ "$CAPACITY_KBIT" -le 1000000 ] || die "CAPACITY_KBIT must be an integer in [64, 1000000]; got '$CAPACITY_KBIT'"
  [ "$MODE" = pels ] || [ "$MODE" = best-effort ] || die "MODE must be pels or best-effort; got '$MODE'"
  is_number "$INTERNET_SHARE" && awk "BEGIN { exit !($INTERNET_SHARE > 0 && $INTERNET_SHARE < 1) }" || die "INTERNET_SHARE must be in (0, 1); got '$INTERNET_SHARE'"
  is_number "$LOSS_PCT" && awk "BEGIN { exit !($LOSS_PCT < 100) }" || die "LOSS_PCT must be a number in [0, 100); got '$LOSS_PCT'"
  is_uint "$DELAY_MS" && [ "$DELAY_MS" -le 10000 ] || die "DELAY_MS must be an integer in [0, 10000]; got '$DELAY_MS'"
  QUEUE_PKTS=${QUEUE_PKTS:-$(calc "($CAPACITY_KBIT * 500 / 8 / 1200 < 20) ? 20 : $CAPACITY_KBIT * 500 / 8 / 1200")}
  GREEN_QUEUE_BYTES=${GREEN_QUEUE_BYTES:-$(calc "($CAPACITY_KBIT * 1000 / 8 < 24000) ? 24000 : $CAPACITY_KBIT * 1000 / 8")}
  is_uint "$GREEN_QUEUE_BYTES" && [ "$GREEN_QUEUE_BYTES" -ge 1500 ] && [ "$GREEN_QUEUE_BYTES" -le 100000000 ] || die "GREEN_QUEUE_BYTES must be an integer in [1500, 100000000]; got '$GREEN_QUEUE_BYTES'"
  for v in QUEUE_PKTS RED_QUEUE_PKTS INTERNET_QUEUE_PKTS; do
    is_uint "${!v}" && [ "${!v}" -ge 2 ] && [ "${!v}" -le 10000 ] || die "$v must be an integer in [2, 10000]; got '${!v}'"
  done
  for v in USE_PRIO USE_NETEM; do
    case ${!v} in auto | yes | no) ;; *) die "$v must be auto, yes or no; got '${!v}'" ;; esac
  done
}

tcx() {
  if [ "$DRY_RUN" = 1 ]; then echo "tc $*"; else tc "$@"; fi
}

# Whether the kernel has a qdisc: try it as DEV's root (apply replaces the root anyway).
have_qdisc() {
  local dev=$1 kind=$2
  tc qdisc replace dev "$dev" root handle fff0: "$kind" >/dev/null 2>&1 || return 1
  tc qdisc del dev "$dev" root >/dev/null 2>&1 || true
}

# auto|yes|no -> 1 or 0; "yes" on a kernel without the qdisc is an error.
decide() {
  local want=$1 dev=$2 kind=$3
  [ "$want" = no ] && { echo 0; return; }
  if [ "$DRY_RUN" = 1 ]; then [ "$want" = yes ] && echo 1 || echo 0; return; fi
  if have_qdisc "$dev" "$kind"; then echo 1; return; fi
  [ "$want" = yes ] && die "the kernel has no $kind qdisc (module sch_$kind); set USE_${kind^^}=no or auto"
  echo 0
}

clear_dev() {
  tcx qdisc del dev "$1" root 2>/dev/null || true
}

apply() {
  local dev=$1
  validate
  clear_dev "$dev"
  local prio netem
  prio=$(decide "$USE_PRIO" "$dev" prio)
  netem=$(decide "$USE_NETEM" "$dev" netem)
  local c="${CAPACITY_KBIT}kbit"
  local video_rate net_rate
  video_rate="$(calc "(($CAPACITY_KBIT * (1 - $INTERNET_SHARE)) < 8) ? 8 : $CAPACITY_KBIT * (1 - $INTERNET_SHARE)")kbit"
  net_rate="$(calc "(($CAPACITY_KBIT * $INTERNET_SHARE) < 8) ? 8 : $CAPACITY_KBIT * $INTERNET_SHARE")kbit"
  htb() { tcx class add dev "$dev" parent "$1" classid "$2" htb rate "$3" ceil "$c" burst 4k cburst 4k quantum 1514 "${@:4}"; }
  leaf() {
    if [ "$netem" = 1 ]; then
      tcx qdisc add dev "$dev" parent "$1" handle "$2" netem limit "$3" loss "${LOSS_PCT}%" delay "${DELAY_MS}ms"
    else
      tcx qdisc add dev "$dev" parent "$1" handle "$2" pfifo limit "$3"
    fi
  }
  # Green's leaf, limited in bytes. netem counts packets only: there the limit is GREEN_QUEUE_BYTES
  # over 500 bytes, about the mean green packet measured in a keyframe burst (video beside the sound).
  green_leaf() {
    if [ "$netem" = 1 ]; then
      leaf "$1" "$2" "$(calc "$GREEN_QUEUE_BYTES / 500")"
    else
      tcx qdisc add dev "$dev" parent "$1" handle "$2" bfifo limit "$GREEN_QUEUE_BYTES"
    fi
  }
  dsfield() { tcx filter add dev "$dev" parent "$1" protocol ip prio 10 u32 match ip dsfield "$2" 0xfc flowid "$3"; }

  tcx qdisc add dev "$dev" root handle 1: htb default 20 r2q 1
  htb 1: 1:1 "$c"
  htb 1:1 1:10 "$video_rate"
  htb 1:1 1:20 "$net_rate"
  leaf 1:20 20: "$INTERNET_QUEUE_PKTS"
  if [ "$MODE" = pels ]; then
    # DSCP << 2: AF41 0x88 green, AF42 0x90 yellow, AF43 0x98 red.
    if [ "$prio" = 1 ]; then
      for ds in 0x88 0x90 0x98; do dsfield 1: "$ds" 1:10; done
      # Every band's filter is explicit, so the TOS priomap never decides.
      tcx qdisc add dev "$dev" parent 1:10 handle 10: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2
      dsfield 10: 0x88 10:1
      dsfield 10: 0x90 10:2
      dsfield 10: 0x98 10:3
      green_leaf 10:1 11:
      leaf 10:2 12: "$QUEUE_PKTS"
      leaf 10:3 13: "$RED_QUEUE_PKTS"
    else
      # Each color's guaranteed rate is tiny: what it gets is lent in priority order.
      htb 1:10 1:11 8kbit prio 0
      htb 1:10 1:12 8kbit prio 1
      htb 1:10 1:13 8kbit prio 2
      green_leaf 1:11 11:
      leaf 1:12 12: "$QUEUE_PKTS"
      leaf 1:13 13: "$RED_QUEUE_PKTS"
      dsfield 1: 0x88 1:11
      dsfield 1: 0x90 1:12
      dsfield 1: 0x98 1:13
    fi
  else
    leaf 1:10 10: "$QUEUE_PKTS"
    tcx filter add dev "$dev" parent 1: protocol ip prio 10 u32 match ip protocol 17 0xff flowid 1:10
  fi
  if [ "$netem" = 0 ] && awk "BEGIN { exit !($LOSS_PCT > 0) }"; then
    # Classic BPF: the kernel's random number (SKF_AD_RANDOM) below the threshold -> class 1:99, a blackhole.
    local threshold
    threshold=$(calc "$LOSS_PCT / 100 * 4294967296")
    tcx class add dev "$dev" parent 1: classid 1:99 htb rate 1gbit quantum 1514
    tcx qdisc add dev "$dev" parent 1:99 handle 99: blackhole
    tcx filter add dev "$dev" parent 1: protocol ip prio 1 bpf bytecode "4,32 0 0 4294963256,53 0 1 $threshold,6 0 0 0,6 0 0 65689" classid 1:99
  fi
  [ "$netem" = 0 ] && [ "$DELAY_MS" -gt 0 ] && say "warning: DELAY_MS=$DELAY_MS ignored: the kernel has no netem"
  local colors='one FIFO for all UDP'
  [ "$MODE" = pels ] && colors=$([ "$prio" = 1 ] && echo 'colors in a prio qdisc' || echo 'colors in HTB priority classes')
  say "applied on $DEV_NAME: $CAPACITY_KBIT kbit/s, mode $MODE ($colors), Internet share $INTERNET_SHARE, loss $LOSS_PCT%, delay ${DELAY_MS} ms, leaves $([ "$netem" = 1 ] && echo netem || echo 'bfifo (green), pfifo')"
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

case ${1:-} in apply | clear | show | run) ;; *) usage ;; esac
DEV_NAME=${2:-$(ip route show default 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }')}
[ -n "$DEV_NAME" ] || die "no device given and no default route to take it from"

case $1 in
  apply) apply "$DEV_NAME" ;;
  clear) clear_dev "$DEV_NAME" ;;
  show) tc -s qdisc show dev "$DEV_NAME" ;;
  run)
    apply "$DEV_NAME"
    trap 'clear_dev "$DEV_NAME"; say "cleared $DEV_NAME"; exit 0' TERM INT
    while :; do
      sleep "$STATS_INTERVAL_S" &
      wait $!
      tc -s qdisc show dev "$DEV_NAME"
    done
    ;;
esac
