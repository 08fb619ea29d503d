#!/bin/sh
# Reads a line of stdin before its run, as an agent given its prompt there does.
# Usage: reads-stdin.sh STREAM PIDFILE LINEFILE
echo "$$" > "$2"
read -r line
printf '%s\n' "$line" > "$3"
cat "$1"
