#!/bin/sh
# bench/streaming.sh — the local streaming map-reduce against the same
# pipeline run by hand.
#
# It generates ~SIZE_MB of text (deterministic: the same file every time),
# then, ROUNDS times each, times
#
#   hand:  cat input | mapper.sh | LC_ALL=C sort | reducer.sh > out
#   gozie: gozie run -config examples/apps/streaming-wordcount/job.properties
#          over the same input, one reducer
#
# with the mapper and reducer of examples/apps/streaming-wordcount, checks
# that both produced the same counts, and prints the median times and
# their ratio (gozie / hand), wall clock and CPU time. The target is a
# wall-clock ratio of at most 1.5. Needs /usr/bin/time (GNU time).
#
# Usage: bench/streaming.sh [SIZE_MB [ROUNDS]]   (defaults: 100 3)
# Environment: GOZIE (a gozie binary; built into the work dir if unset),
# WORK (work directory; default a temporary one, removed at the end).
set -eu

size_mb=${1:-100}
rounds=${2:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
app=$repo/examples/apps/streaming-wordcount

own_work=""
if [ -z "${WORK:-}" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/gozie-streaming-bench.XXXXXX")
	own_work=$WORK
fi
cleanup() { [ -n "$own_work" ] && rm -rf "$own_work"; }
trap cleanup EXIT INT TERM
mkdir -p "$WORK/input"

if [ -z "${GOZIE:-}" ]; then
	GOZIE=$WORK/gozie
	(cd "$repo" && go build -o "$GOZIE" ./cmd/gozie)
fi

input=$WORK/input/text.txt
if [ ! -s "$input" ]; then
	# Words w0..w49999, skewed towards small numbers (Zipf-like, as in
	# prose), 12 to a line; a Park-Miller generator, exact in awk's doubles.
	awk -v bytes=$((size_mb * 1024 * 1024)) 'BEGIN {
		x = 42; n = 0; line = ""; k = 0
		while (n < bytes) {
			x = (x * 16807) % 2147483647
			r = x / 2147483647
			w = "w" int(r * r * r * 50000)
			line = (k == 0) ? w : line " " w
			if (++k == 12) { print line; n += length(line) + 1; k = 0 }
		}
		if (k > 0) print line
	}' > "$input"
fi
echo "input: $(wc -c < "$input") bytes, $(wc -l < "$input") lines ($input)"

# timed FILE CMD...: runs CMD, appends "wall cpu" (seconds; cpu is user +
# system of CMD and everything it waited for) to FILE. The CPU time is the
# steadier number on a loaded machine.
timed() {
	f=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$WORK/time.out" "$@"
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$WORK/time.out" >> "$f"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

hand_times=$WORK/hand.times
gozie_times=$WORK/gozie.times
: > "$hand_times"
: > "$gozie_times"
i=1
while [ "$i" -le "$rounds" ]; do
	timed "$hand_times" sh -c 'cat "$1" | sh "$2/scripts/mapper.sh" | LC_ALL=C sort | sh "$2/scripts/reducer.sh" > "$3"' \
		sh "$input" "$app" "$WORK/hand.out"

	rm -rf "$WORK/out" "$WORK/data"
	timed "$gozie_times" "$GOZIE" run -config "$app/job.properties" -data "$WORK/data" \
		-D inputDir="$WORK/input" -D outputRoot="$WORK/out" -D reducers=1 > "$WORK/gozie.log" 2>&1 ||
		{ cat "$WORK/gozie.log"; exit 1; }
	grep -q 'Status : SUCCEEDED' "$WORK/gozie.log" || { cat "$WORK/gozie.log"; exit 1; }

	# Hadoop's text output adds a tab after a value-less line: drop it
	# to compare the counts.
	if ! sed 's/\t$//' "$WORK"/out/*/part-00000 | cmp -s - "$WORK/hand.out"; then
		echo "gozie's counts differ from the hand pipeline's" >&2
		exit 1
	fi
	echo "round $i: hand $(tail -1 "$hand_times" | awk '{ print $1 "s (cpu " $2 "s)" }'), gozie $(tail -1 "$gozie_times" | awk '{ print $1 "s (cpu " $2 "s)" }')"
	i=$((i + 1))
done

hand=$(awk '{ print $1 }' "$hand_times" | median)
gz=$(awk '{ print $1 }' "$gozie_times" | median)
hand_cpu=$(awk '{ print $2 }' "$hand_times" | median)
gz_cpu=$(awk '{ print $2 }' "$gozie_times" | median)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "median of $rounds: hand pipeline ${hand}s (cpu ${hand_cpu}s), gozie run ${gz}s (cpu ${gz_cpu}s)"
echo "ratio gozie/hand: wall $(ratio "$gz" "$hand") (target <= 1.5), cpu $(ratio "$gz_cpu" "$hand_cpu")"
