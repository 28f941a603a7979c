#!/usr/bin/env bash
# Several gozie servers on one PostgreSQL store, in one command and one
# table (see docs/benchmarks.md): (a) throughput of 1, 2 and 3 servers,
# (b) failover time after a SIGKILL with the default lease (20 s, heartbeat
# 5 s) and with 5 s / 1 s (with -burst N also a SIGKILL halfway through a
# burst of N submissions, when steps are being started), (c) a PostgreSQL restart in the middle of a
# three-server run (as root where pg_ctlcluster exists: it restarts the
# machine's PostgreSQL). Needs PostgreSQL at 127.0.0.1:5432, database test
# (-pg to change); each part uses a schema of its own.
#
# Usage: bench/cluster.sh [cluster flags]   e.g. -workflows 300, -pg-restart no,
#                                           -parts b -burst 200
#        bench/cluster.sh -quick            reduced sizes, no restart (CI):
#                                           fails only if a workflow does not
#                                           succeed or a step ran twice
#        go run ./bench/cluster -h          lists the flags
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gozie" ./cmd/gozie
go build -o "$work/cluster" ./bench/cluster
echo "== $(go version), $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
"$work/cluster" -gozie "$work/gozie" "$@"
