#!/usr/bin/env bash
# The input check at scale (issue 25, docs/storage.md, "Input checks at scale"): one
# input-check cycle of a coordinator with 10,000 WAITING actions x 3
# datasets, on the local file system and, when versitygw is on PATH
# (`. .ci/tools.sh` installs it), on a local S3 server started here.
#
# Usage: bench/inputcheck.sh [inputcheck flags]   e.g. -actions 1000 -present 0.8
#        bench/inputcheck.sh -files 3             data files beside each flag
#        go run ./bench/inputcheck -h             lists the flags
set -euo pipefail
cd "$(dirname "$0")/.."
# .ci/tools.sh puts versitygw there.
export PATH="${GOZIE_TOOLS:-$HOME/.cache/gozie-tools}/bin:$PATH"

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/inputcheck" ./bench/inputcheck
echo "== $(go version), $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

echo "== local file system"
"$work/inputcheck" -root "$work/local" "$@"

if ! command -v versitygw >/dev/null; then
  echo "== S3: versitygw is not on PATH (run \`bash .ci/tools.sh\`): skipped"
  exit 0
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/s3/gozie-bench"
secret=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
# The keys go through the environment, never the command line.
ROOT_ACCESS_KEY_ID=gozie-bench ROOT_SECRET_ACCESS_KEY="$secret" \
  versitygw --port "127.0.0.1:$port" --region us-east-1 --quiet posix "$work/s3" >"$work/versitygw.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
echo "== S3: versitygw $(versitygw --version 2>/dev/null | awk '/Version/ {print $3}') on 127.0.0.1:$port (POSIX backend)"
GOZIE_BENCH_S3_ENDPOINT="http://127.0.0.1:$port" GOZIE_BENCH_S3_ACCESS_KEY=gozie-bench GOZIE_BENCH_S3_SECRET_KEY="$secret" \
  GOZIE_BENCH_S3_BUCKET=gozie-bench "$work/inputcheck" "$@"
