#!/usr/bin/env bash
# Runs a command in a session of its own, waits for it and exits with its status.
#
# Why: tests stop processes on purpose (SIGSTOP on FFmpeg, an encoder, a media
# worker: a stall). When a process group loses its last parent outside the group
# while one of its processes is stopped, the kernel sends SIGHUP to every process
# of the group (POSIX orphaned process groups). A test suite started as a
# background job of a shell that then exited vanished that way, whole, without a
# line of output. The first group of a new session has no parent outside it in
# that session, so no shell's exit can hang it up.
#
# INT, TERM or HUP to this script end the whole session (a terminal's Ctrl-C
# does not reach it otherwise); CONT after TERM, so a stopped process takes it.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: $0 command [args...]" >&2; exit 2; }
# A background job of a shell without job control is no group leader, so setsid
# makes it the session's leader itself (no fork): its pid is the session's group.
setsid "$@" &
session=$!
trap '[ "$session" -gt 1 ] && kill -TERM -- "-$session" 2>/dev/null && kill -CONT -- "-$session" 2>/dev/null' INT TERM HUP
while :; do
  wait "$session"
  status=$?
  kill -0 "$session" 2>/dev/null || break # gone: status is its own, not a trapped signal's
done
exit "$status"
