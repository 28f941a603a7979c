#!/usr/bin/env bash
# CPU per step (issue 31), by process: the server, the launch supervisor
# and the programs it runs (its reaped children), read from /proc/PID/stat
# before and after the measured runs. CPU time is what the load of other
# processes inflates least, so this compares builds on a busy machine
# where wall times do not (docs/benchmarks.md, "per-step cost").
#
# Usage: bench/stepcpu.sh [-pg DSN] seq GOZIE RUNS   RUNS x 100 sequential shell `true` steps,
#                                                   submitted one after the other
#        bench/stepcpu.sh [-pg DSN] tp GOZIE N      N three-step workflows from 16 clients
# Prints microseconds of CPU per step (seq) or per workflow (tp). With -pg
# the server uses PostgreSQL (a schema of its own, dropped at the end) and
# the line adds the CPU of every postgres process (other sessions too).
# KEEP=1 keeps the work directory (under TMPDIR): removing thousands of
# files slows the next creations on ext4 without a journal for a minute or
# two, so keep them between measurements and remove them all at the end.
set -euo pipefail
dsn=""
if [ "${1:-}" = "-pg" ]; then dsn=$2; shift 2; fi
mode=${1:?seq or tp}; bin=$(readlink -f "${2:?gozie binary}"); n=${3:?count}
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
shell_action() { printf '<action name="%s"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager><name-node>file:///</name-node><exec>true</exec></shell><ok to="%s"/><error to="fail"/></action>\n' "$1" "$2"; }
linear() { # dir steps
  mkdir -p "$1"
  { echo '<workflow-app xmlns="uri:oozie:workflow:1.0" name="linear"><start to="s1"/>'
    for i in $(seq 1 "$2"); do next="s$((i + 1))"; [ "$i" -eq "$2" ] && next=end; shell_action "s$i" "$next"; done
    echo '<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>'; } >"$1/workflow.xml"
}
if [ "$mode" = seq ]; then steps=100; else steps=3; fi
linear "$work/app" $steps

db=(); schema=""
if [ -n "$dsn" ]; then
  schema=stepcpu_$RANDOM$RANDOM
  psql -q "$dsn" -c "CREATE SCHEMA $schema" >/dev/null
  sep='?'; case $dsn in *\?*) sep='&';; esac
  db=(-db "$dsn${sep}search_path=$schema")
fi
"$bin" server -port "$port" -data "$work/data" "${db[@]}" >"$work/server.log" 2>&1 &
spid=$!
sup=""
cleanup() {
  kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null || true
  [ -n "$sup" ] && kill -TERM "$sup" 2>/dev/null || true
  [ -n "$schema" ] && psql -q "$dsn" -c "DROP SCHEMA $schema CASCADE" >/dev/null 2>&1 || true
  if [ "${KEEP:-}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
base=http://127.0.0.1:$port/oozie
for _ in $(seq 100); do curl -sf "$base/versions" >/dev/null && break; sleep 0.1; done
export conf="<configuration><property><name>oozie.wf.application.path</name><value>file://$work/app</value></property></configuration>" base
submit() { curl -sf -X POST -H 'Content-Type: application/xml;charset=UTF-8' --data "$conf" "$base/v2/jobs?action=start&user.name=bench" | sed 's/.*"id":"\([^"]*\)".*/\1/'; }
waitjob() {
  while :; do
    s=$(curl -sf "$base/v2/job/$1?show=status" | sed 's/.*"status":"\([^"]*\)".*/\1/')
    case $s in SUCCEEDED) return 0 ;; RUNNING|PREP) sleep 0.05 ;; *) echo "job $1 ended $s" >&2; return 1 ;; esac
  done
}
export -f submit
waitjob "$(submit)" # warm-up: starts the supervisor
sup=$(pgrep -f "launch -supervise $work/data" | head -1)
cpu() { awk '{print $14+$15, $16+$17}' "/proc/$1/stat"; }
pgcpu() { local t=0; for p in $(pgrep -x postgres || true); do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo $t; }
read -r s0 _ <<<"$(cpu "$spid")"; read -r u0 c0 <<<"$(cpu "$sup")"; p0=$(pgcpu)
t0=$(date +%s%N)
if [ "$mode" = seq ]; then
  for _ in $(seq "$n"); do waitjob "$(submit)"; done
  per=$((n * 100)); unit=step
else
  seq "$n" | xargs -P16 -I{} bash -c 'submit >/dev/null'
  while :; do
    r=$(curl -sf "$base/v2/jobs?filter=status%3DRUNNING%3Bstatus%3DPREP&len=1" | sed 's/.*"total":\([0-9]*\).*/\1/')
    [ "$r" = 0 ] && break; sleep 0.2
  done
  per=$n; unit=workflow
fi
t1=$(date +%s%N)
read -r s1 _ <<<"$(cpu "$spid")"; read -r u1 c1 <<<"$(cpu "$sup")"; p1=$(pgcpu)
tck=$(getconf CLK_TCK)
us() { echo $(($1 * 1000000 / tck / per)); }
line="µs of CPU per $unit: server $(us $((s1 - s0))) supervisor $(us $((u1 - u0))) programs $(us $((c1 - c0)))"
[ -n "$dsn" ] && line="$line postgres $(us $((p1 - p0)))"
echo "$line; wall $(((t1 - t0) / 1000 / per)) µs per $unit ($per ${unit}s, $(basename "$bin"))"
