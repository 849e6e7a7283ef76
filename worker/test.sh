#!/usr/bin/env bash
# worker/test.sh (make worker-test): runs the Worker build under wrangler dev,
# locally and offline, beside the native server, and compares their answers
# with cmd/workertest. Loopback only; everything it starts, it stops.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI=true WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false \
  WRANGLER_HIDE_BANNER=true CLOUDFLARE_CF_FETCH_ENABLED=false
NATIVE_PORT=${NATIVE_PORT:-18099}
WORKER_PORT=${WORKER_PORT:-18787}
tmp=$(mktemp -d)
native_pid="" worker_pid=""
cleanup() {
  [ -n "$native_pid" ] && kill "$native_pid" 2>/dev/null || true
  # wrangler runs node and workerd: end its whole process group.
  [ -n "$worker_pid" ] && { kill -- "-$worker_pid" 2>/dev/null || true; sleep 1; kill -9 -- "-$worker_pid" 2>/dev/null || true; }
  rm -rf "$tmp"
}
trap cleanup EXIT

# The Worker targets the Workers Paid plan (its CPU time needs it, see
# docs/worker.md), which takes a Worker of at most 10 MiB gzipped: one that
# no longer fits fails here, not at deploy time. wrangler measures it (a dry
# run: nothing is sent).
size=$(cd worker && npx wrangler deploy --dry-run --outdir "$tmp/dry-run" 2>&1 | sed -n 's/.*gzip: \([0-9.]*\) KiB.*/\1/p')
awk -v s="$size" 'BEGIN { if (s == "" || s + 0 > 10240) { print "the Worker is " (s == "" ? "of unknown size" : s " KiB gzipped") "; the Paid plan allows 10240 KiB"; exit 1 }
  print "the Worker is " s " KiB gzipped, of 10240 allowed" }'

(cd worker && npx wrangler d1 migrations apply DB --local --persist-to "$tmp/state" >"$tmp/migrate.log" 2>&1) ||
  { cat "$tmp/migrate.log"; exit 1; }

# The native server without PNG charts, import/export and searches, as the
# Worker is built (nopng, noconvert, nosearch: the gallery then lists the
# same built-ins): the rest of their answers must be the same bytes.
go build -tags nopng,noconvert,nosearch -o "$tmp/retrylab" ./cmd/retrylab
"$tmp/retrylab" serve --addr "127.0.0.1:$NATIVE_PORT" --db "$tmp/native.db" 2>"$tmp/native.log" &
native_pid=$!

setsid bash -c "cd worker && exec npx wrangler dev --local --ip 127.0.0.1 --port $WORKER_PORT --inspector-port 0 --persist-to '$tmp/state'" \
  >"$tmp/wrangler.log" 2>&1 &
worker_pid=$!

ready() {
  # A bound for a broken start, not a speed test: a loaded machine can take
  # a minute or more to start wrangler.
  for _ in $(seq 1 600); do
    curl -fsS -o /dev/null "$1/healthz" 2>/dev/null && return 0
    sleep 0.5
  done
  echo "worker/test.sh: $1 did not start"; tail -40 "$tmp/wrangler.log" "$tmp/native.log"; return 1
}
ready "http://127.0.0.1:$NATIVE_PORT"
ready "http://127.0.0.1:$WORKER_PORT"

go run ./cmd/workertest -native "http://127.0.0.1:$NATIVE_PORT" -worker "http://127.0.0.1:$WORKER_PORT" ||
  { echo "--- wrangler log"; tail -40 "$tmp/wrangler.log"; exit 1; }
