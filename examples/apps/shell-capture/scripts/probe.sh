#!/bin/sh
# probe.sh: reports facts about the machine as Java properties on stdout,
# which the shell action captures (<capture-output/>) for later nodes.
set -eu
echo "status=ok"
echo "host=$(hostname 2>/dev/null || echo unknown)"
echo "files=$(ls "${1:-.}" | wc -l | tr -d ' ')"
