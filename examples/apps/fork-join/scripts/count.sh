#!/bin/sh
# count.sh MODE OUT: counts words or lines of a fixed text and writes "MODE=N" to OUT.
set -eu
mode=$1
out=$2
text='gozie runs Oozie applications
unchanged, on one laptop
or on several servers'
case "$mode" in
words) n=$(printf '%s\n' "$text" | wc -w) ;;
lines) n=$(printf '%s\n' "$text" | wc -l) ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
echo "$mode=$(echo $n)" > "$out"
