#!/usr/bin/env bash
# The performance benchmark of issue 15 in one command and one table (see
# docs/benchmarks.md): shapes (a) 100 sequential and (b) 1 -> 100 parallel
# shell `true` steps against their fork/exec floors, (c) throughput of one
# `gozie server` running 1,000 three-step workflows, on SQLite and on
# PostgreSQL (127.0.0.1:5432, database test, a schema of its own) when it
# answers, (d) engine overhead per no-op action, (e) idle server RSS.
#
# Usage: bench/perf.sh [perf flags]   e.g. -rounds 5, -pg '' (SQLite only)
#        bench/perf.sh -quick         10 steps, 100 workflows, 1 round (CI)
#        go run ./bench/perf -h       lists the flags
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gozie" ./cmd/gozie
go build -o "$work/perf" ./bench/perf
echo "== $(go version), $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
"$work/perf" -gozie "$work/gozie" -repo . "$@"
