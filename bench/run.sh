#!/usr/bin/env bash
# Engine benchmarks of issue 3, kept short for a shared 2-core machine.
#
#  1. go test benchmarks (internal/engine/bench_test.go): engine overhead per
#     action with a no-op action type, 1,000-node linear and 1,000-way
#     fork/join, on SQLite and on PostgreSQL (skipped without a server; see
#     GOZIE_TEST_POSTGRES_DSN), and the shell shapes in-process with peak RSS
#     from getrusage.
#  2. The shell shapes through the real binary, `gozie run`, timed by
#     /usr/bin/time -v (wall time and peak RSS), when the binary has the run
#     command:
#       - 100 sequential shell `true` steps
#       - 1 -> 100 parallel shell `true` -> join
#       - 50 runs of a 10-step workflow (started together)
#
# Usage: bench/run.sh [benchtime]   (default 3x for no-op, 1x for shell)
set -euo pipefail
cd "$(dirname "$0")/.."

noop_time=${1:-3x}

echo "== go test benchmarks (no-op: engine overhead per action)"
go test -run '^$' -bench 'Noop' -benchtime "$noop_time" ./internal/engine/
echo "== go test benchmarks (shell shapes, in-process)"
go test -run '^$' -bench 'Shell' -benchtime 1x ./internal/engine/

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gozie" ./cmd/gozie
if ! "$work/gozie" help | grep -q '^  run '; then
  echo "== gozie run is not wired into this binary yet; skipping the binary timings"
  exit 0
fi

shell_action() { # name next
  printf '<action name="%s"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager><name-node>file:///</name-node><exec>true</exec></shell><ok to="%s"/><error to="fail"/></action>\n' "$1" "$2"
}

linear() { # dir n
  mkdir -p "$1"
  {
    echo '<workflow-app xmlns="uri:oozie:workflow:1.0" name="linear"><start to="s1"/>'
    for i in $(seq 1 "$2"); do
      next="s$((i + 1))"; [ "$i" -eq "$2" ] && next=end
      shell_action "s$i" "$next"
    done
    echo '<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>'
  } >"$1/workflow.xml"
}

fork() { # dir n
  mkdir -p "$1"
  {
    echo '<workflow-app xmlns="uri:oozie:workflow:1.0" name="fork"><start to="f"/><fork name="f">'
    for i in $(seq 1 "$2"); do echo "<path start=\"p$i\"/>"; done
    echo '</fork>'
    for i in $(seq 1 "$2"); do shell_action "p$i" j; done
    echo '<join name="j" to="end"/><kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>'
  } >"$1/workflow.xml"
}

timed() { # label command...
  local label=$1; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" >"$work/out" 2>"$work/time" || { cat "$work/out" "$work/time"; return 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
    printf '%-34s wall %s  peak RSS %s KB\n' "$label" "$wall" "$rss"
  else
    local t0 t1
    t0=$(date +%s.%N); "$@" >"$work/out"; t1=$(date +%s.%N)
    printf '%-34s wall %.3fs\n' "$label" "$(echo "$t1 - $t0" | bc)"
  fi
}

linear "$work/seq100" 100
fork "$work/par100" 100
linear "$work/ten" 10

echo "== gozie run (binary), /usr/bin/time -v"
timed "100 sequential shell steps" "$work/gozie" run -D "oozie.wf.application.path=$work/seq100" -data "$work/d1"
timed "1 -> 100 parallel -> join" "$work/gozie" run -D "oozie.wf.application.path=$work/par100" -data "$work/d2"

# 50 runs of a 10-step workflow, 50 processes at once (each its own store).
fifty() {
  local pids=()
  for r in $(seq 1 50); do
    "$1" run -D "oozie.wf.application.path=$2" -data "$3/r$r" >/dev/null &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}
export -f fifty
timed "50 runs of a 10-step workflow" bash -c "fifty '$work/gozie' '$work/ten' '$work/d3'"
