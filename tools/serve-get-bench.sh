#!/bin/bash
# Small-request throughput of `triggerkit serve`: GET /v1/requests/<id> under wrk (2 threads,
# 16 connections, 5 s, loopback), for each binary given, in turn, ROUNDS times (default 2).
# What it shows: the cost per call of the tenant's queue hop (each center call moves to the
# tenant's own thread and back).
#   tools/serve-get-bench.sh BINARY [BINARY...]      (wrk from Debian's packages)
# Bounded: each wrk run lasts 5 s; each server is started on a fresh data directory and
# killed after its run. Only 127.0.0.1 is used.
set -eu
ROUNDS=${ROUNDS:-2}
TOK=bench-token
HASH=$(printf '%s' "$TOK" | sha256sum | cut -d' ' -f1)
one() {
    local bin=$1 dir port pid
    dir=$(mktemp -d)
    "$bin" serve --data-dir "$dir" --clock stream --start 2026-11-23T08:00:00Z --tenant "acme=$HASH" --port 0 2> "$dir/log" &
    pid=$!
    for _ in $(seq 100); do grep -q 'listening on' "$dir/log" && break; sleep 0.1; done
    port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/log" | grep -o '[0-9]*$')
    curl -s -X POST "localhost:$port/v1/requests" -H "Authorization: Bearer $TOK" \
        -d '{"identifier":"c0","content":{"title":"x"},"trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}' > /dev/null
    wrk -t2 -c16 -d5s -H "Authorization: Bearer $TOK" "http://127.0.0.1:$port/v1/requests/c0" |
        awk -v b="$bin" '/Latency/ {lat=$2} /Requests\/sec/ {printf "| %s | %s | %s |\n", b, $2, lat}'
    kill "$pid"; wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
}
echo "| binary | requests/s | mean latency |"
echo "|---|---:|---:|"
for _ in $(seq "$ROUNDS"); do for b in "$@"; do one "$b"; done; done
