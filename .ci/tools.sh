#!/usr/bin/env bash
# Installs the real store servers the file-system backends are tested
# against, into $GOZIE_TOOLS (default ~/.cache/gozie-tools), once:
#   versitygw        an S3 server (POSIX backend)          Go module
#   fake-gcs-server  the Google Cloud Storage emulator     Go module
#   azurite          Microsoft's Azure Storage emulator    npm package
# Source it (". .ci/tools.sh") to get them on PATH; the tests find them
# there. Without them the backend suites skip outside CI and fail in CI.
set -euo pipefail
GOZIE_TOOLS=${GOZIE_TOOLS:-$HOME/.cache/gozie-tools}
export GOZIE_TOOLS
mkdir -p "$GOZIE_TOOLS/bin"
if [ ! -x "$GOZIE_TOOLS/bin/versitygw" ]; then
  echo "installing versitygw v1.8.0" >&2
  GOBIN="$GOZIE_TOOLS/bin" GOFLAGS=-mod=mod go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
fi
if [ ! -x "$GOZIE_TOOLS/bin/fake-gcs-server" ]; then
  echo "installing fake-gcs-server v1.56.1" >&2
  GOBIN="$GOZIE_TOOLS/bin" GOFLAGS=-mod=mod go install github.com/fsouza/fake-gcs-server@v1.56.1
fi
if [ ! -x "$GOZIE_TOOLS/bin/azurite-blob" ]; then
  echo "installing azurite 3.35.0" >&2
  mkdir -p "$GOZIE_TOOLS/azurite"
  (cd "$GOZIE_TOOLS/azurite" && [ -f package.json ] || echo '{"private":true}' > "$GOZIE_TOOLS/azurite/package.json")
  npm install --prefix "$GOZIE_TOOLS/azurite" --no-audit --no-fund --silent azurite@3.35.0 >&2
  ln -sf "$GOZIE_TOOLS/azurite/node_modules/.bin/azurite-blob" "$GOZIE_TOOLS/bin/azurite-blob"
fi
export PATH="$GOZIE_TOOLS/bin:$PATH"
