#!/usr/bin/env bash
# Issue 20's recovery benchmark: NODES backplane nodes sharing one Redis (appendfsync always), CLIENTS of our Java
# client reconnecting after an outage of OUTAGE while publishers go on at RATE on one room (RATE x OUTAGE missed each).
# The servers forget every session during the outage (timeout 2s + maxInterval 3s, well under it), so every
# subscriber re-handshakes and resubscribes with its positions (see benchmarks.md, "Recovery after an outage");
# history keeps HISTORY messages a channel and a recovery returns up to as many (default 5000, above what a
# subscriber misses; the defaults are 1000 each) and, as every client comes
# from 127.0.0.1, the per-address handshake limit is off (else 1,000 re-handshakes take 2.5 s at 200/s a node).
# Usage: docs/benchmarks/recovery-outage.sh OUTDIR [NODES] [OUTAGE]  (env: CLIENTS, RATE, MAX_BACKOFF, HISTORY)
set -euo pipefail
OUT="$1"; NODES="${2:-2}"; OUTAGE="${3:-10s}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
export JAVA_OPTS="${JAVA_OPTS:--Xms1g -Xmx1g}"
pids=(); rpid=""
cleanup() { for p in "${pids[@]}" $rpid; do kill "$p" 2>/dev/null || true; done
            for p in "${pids[@]}" $rpid; do wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
dir=$(mktemp -d); RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$dir" --appendonly yes --appendfsync always --save '' \
  > "$OUT/redis.log" 2>&1 &
rpid=$!
for i in $(seq 1 100); do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
urls=""
for n in $(seq 1 "$NODES"); do
  port=$(free_port)
  "$ROOT/bin/bayeux" server --port "$port" --host 127.0.0.1 --backplane "redis://127.0.0.1:$RPORT" \
    --set timeout=2s --set maxInterval=3s --set historySize="${HISTORY:-5000}" \
    --set 'historyRules=/load/room/*' --set historyLookBack=10m --set historyMaxBytes=67108864 \
    --set recoveryMaxMessages="${HISTORY:-5000}" --set maxHandshakesPerAddressPerSecond=-1 > "$OUT/node$n.log" 2>&1 &
  pids+=($!)
  for i in $(seq 1 300); do grep -q "Listening on" "$OUT/node$n.log" && break; sleep 0.2; done
  grep -q "Listening on" "$OUT/node$n.log" || { echo "node $n did not start" >&2; exit 1; }
  urls="${urls:+$urls,}http://127.0.0.1:$port/bayeux"
done
"$ROOT/bin/bayeux" load --outage "$OUTAGE" --url "$urls" --clients "${CLIENTS:-1000}" --publishers 2 --rooms 1 \
  --rate "${RATE:-100}" --warm-up 5s --duration 5s --drain 120s --max-backoff "${MAX_BACKOFF:-1s}" \
  --output "$OUT/outage" --label "outage-$NODES" > "$OUT/outage.txt" 2>&1 || echo "load exit $?" >> "$OUT/outage.txt"
cat "$OUT/outage.txt" | tail -25
