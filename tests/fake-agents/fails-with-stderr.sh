#!/bin/sh
# Fails at once, as an agent that is not logged in does: an error on stderr, status 1.
echo "Error: Authentication required. Please run 'agent login' first." >&2
exit 1
