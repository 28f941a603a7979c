#!/usr/bin/env bash
# REST load benchmark of `gozie server` (see docs/benchmarks.md).
#
#  1. seeds a temporary data directory with 10,000 finished workflow jobs
#     (four action records each) straight through the store API;
#  2. starts `gozie server` on a free loopback port over it;
#  3. GET /oozie/v2/job/<id>?show=info and GET /oozie/v2/jobs?len=50&offset=N,
#     each closed-loop (16 clients back to back) and open-loop (1,000 req/s);
#  4. POST /oozie/v2/jobs?action=start of a two-step fs workflow, 500 times
#     from 8 clients, then waits for those workflows to finish.
#
# Usage: bench/server.sh [loadgen flags]   e.g. -duration 10s -rate 500
#        go run ./bench/loadgen -h          lists the flags
# It is not part of `go test ./...`; it takes under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== building gozie and loadgen"
go build -o "$work/gozie" ./cmd/gozie
go build -o "$work/loadgen" ./bench/loadgen
echo "== $(go version), $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm)"
"$work/loadgen" -gozie "$work/gozie" "$@"
