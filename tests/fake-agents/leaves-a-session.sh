#!/bin/sh
# Prints a whole run and exits, but first starts a command in a session of its own (as
# Claude's hooks and the shell tools of Gemini and OpenCode do) that holds stdout open:
# out of the agent's process group, it must still be stopped.
# Usage: leaves-a-session.sh STREAM PIDFILE
setsid sleep 300 &
echo "$!" > "$2"
cat "$1"
