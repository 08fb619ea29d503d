#!/bin/sh
# Prints the start of a run, then is killed before its result.
# Usage: dies-without-result.sh STREAM
head -n 12 "$1"
kill -KILL $$
