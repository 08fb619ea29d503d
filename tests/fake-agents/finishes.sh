#!/bin/sh
# A well-behaved agent: prints a run and exits.
# Usage: finishes.sh STREAM
cat "$1"
