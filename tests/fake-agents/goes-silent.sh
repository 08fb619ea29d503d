#!/bin/sh
# Prints the start of a run, then nothing more, for ever.
# Usage: goes-silent.sh STREAM [PIDFILE]
[ -n "$2" ] && echo "$$" > "$2"
head -n 8 "$1"
exec sleep 300
