#!/bin/sh
# Prints a whole run, result included, then hangs, as `agent -p` has been seen to; it
# also leaves a child of its own behind, which must be stopped too.
# Usage: hangs-after-result.sh STREAM [PIDFILE]
sleep 300 &
[ -n "$2" ] && echo "$$ $!" > "$2"
cat "$1"
exec sleep 300
