#!/usr/bin/env bash
# Issue 21's benchmark: profile (c) (10,000 WebSocket clients, 100 rooms, 1 each, 200 msg/s, raw client, one
# publisher) against the standalone server with metrics off and on, alternately, ROUNDS times each. With metrics on,
# /metrics is scraped every SCRAPE seconds during the run (Prometheus' default is 15 s; 5 s is harsher).
# Every client comes from 127.0.0.1, so the per-address handshake and session limits are off (as in the load server).
# Server CPU is user + system time from /proc over the load run (ramp-up, warm-up, measured minute and drain).
# Usage: docs/benchmarks/metrics-onoff.sh OUTDIR [ROUNDS]   (env: DUR, SCRAPE)
set -euo pipefail
OUT="$1"; ROUNDS="${2:-2}"; DUR="${DUR:-60s}"; SCRAPE="${SCRAPE:-5}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$OUT"
export JAVA_OPTS="${JAVA_OPTS:--Xms1g -Xmx1g}"
pids=(); scraper=""
cleanup() { [ -n "$scraper" ] && kill "$scraper" 2>/dev/null || true
            for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
            for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; scraper=""; }
trap cleanup EXIT
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
javapid() { local c; c=$(pgrep -P "$1" java || true); echo "${c:-$1}"; }
: > "$OUT/cpu.txt"
for round in $(seq 1 "$ROUNDS"); do
  for metrics in false true; do
    label="metrics-$metrics-$round"; pids=()
    "$ROOT/bin/bayeux" server --port 18091 --host 127.0.0.1 --set metrics.enabled=$metrics \
      --set maxHandshakesPerAddressPerSecond=-1 --set maxSessionsPerAddress=-1 > "$OUT/$label.log" 2>&1 &
    pids+=($!)
    for i in $(seq 1 300); do grep -q "Listening on" "$OUT/$label.log" && break; sleep 0.2; done
    j=$(javapid "${pids[0]}"); c0=$(cpu "$j")
    if [ "$metrics" = true ]; then
      ( while true; do curl -s -o /dev/null http://127.0.0.1:18091/metrics || true; sleep "$SCRAPE"; done ) &
      scraper=$!
    fi
    "$ROOT/bin/bayeux" load --client raw --quiet --url http://127.0.0.1:18091/bayeux --transport websocket \
      --clients 10000 --rooms 100 --rooms-per-client 1 --rate 200 --size 50 --publishers 1 --ramp-up 30s \
      --warm-up 10s --duration "$DUR" --output "$OUT/$label" --label "$label" > "$OUT/$label.txt" 2>&1 \
      || echo "load exit $?" >> "$OUT/$label.txt"
    echo "$label cpu_ticks $(( $(cpu "$j") - c0 ))" >> "$OUT/cpu.txt"
    if [ "$metrics" = true ]; then curl -s http://127.0.0.1:18091/metrics > "$OUT/$label.metrics.txt" || true; fi
    cleanup
  done
done
cat "$OUT/cpu.txt"; grep -h "p99\|lost" "$OUT"/metrics-*.txt | head -40
