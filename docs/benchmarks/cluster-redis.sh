#!/usr/bin/env bash
# Profile (a) on 1, 2 and 3 nodes sharing one Redis (clients split round robin), raw client; CPU of the servers and
# of redis-server from /proc. Redis runs from a temporary directory on a free loopback port with appendonly yes and
# appendfsync always (what the backplane's "acknowledged means stored" assumes).
# Usage: docs/benchmarks/cluster-redis.sh OUTDIR [RATE] [DURATION] [NODES...]
#   (env: CLIENTS, RAMP, WARM, FSYNC=always|everysec, NODE_ARGS: more arguments for every node, e.g.
#   "--set presenceTtl=1h")
set -euo pipefail
OUT="$1"; RATE="${2:-1000}"; DUR="${3:-60s}"; shift $(( $# < 3 ? $# : 3 )); NODES=("${@:-1 2 3}")
[ "$#" -eq 0 ] && NODES=(1 2 3)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
export JAVA_OPTS="${JAVA_OPTS:--Xms1g -Xmx1g}"
pids=(); rpid=""
cleanup() { for p in "${pids[@]}" $rpid; do kill "$p" 2>/dev/null || true; done
            for p in "${pids[@]}" $rpid; do wait "$p" 2>/dev/null || true; done; pids=(); rpid=""; }
trap cleanup EXIT
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
javapid() { local p="$1"; local c; c=$(pgrep -P "$p" java || true); echo "${c:-$p}"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
start_redis() {
  local dir i; dir=$(mktemp -d); RPORT=$(free_port)
  redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$dir" --appendonly yes --appendfsync "${FSYNC:-always}" \
    --save '' --daemonize no > "$OUT/redis-$1.log" 2>&1 &
  rpid=$!
  for i in $(seq 1 100); do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.1; done
  echo "redis did not start" >&2; exit 1
}
start_node() { # port log args...
  local port="$1" log="$2" i; shift 2
  # shellcheck disable=SC2086
  "$ROOT/bin/bayeux" server --port "$port" --host 127.0.0.1 "$@" ${NODE_ARGS:-} > "$log" 2>&1 &
  pids+=($!)
  for i in $(seq 1 300); do grep -q "Listening on" "$log" && return 0; sleep 0.2; done
  echo "node on $port did not start" >&2; cat "$log" >&2; exit 1
}
run() { # nodes
  local n="$1" label="redis-$1" urls="" i
  start_redis "$n"
  for i in $(seq 1 "$n"); do
    start_node $((18180 + i)) "$OUT/$label-node$i.log" --backplane "redis://127.0.0.1:$RPORT"
    urls="${urls:+$urls,}http://127.0.0.1:$((18180 + i))/bayeux"
  done
  local js=() c0=0 j
  for p in "${pids[@]}"; do j=$(javapid "$p"); js+=("$j"); c0=$((c0 + $(cpu "$j"))); done
  local r0; r0=$(cpu "$rpid")
  "$ROOT/bin/bayeux" load --client raw --quiet --url "$urls" --transport websocket --clients "${CLIENTS:-1000}" \
    --rooms 100 --rooms-per-client 10 --rate "$RATE" --size 50 --ramp-up "${RAMP:-10s}" --warm-up "${WARM:-10s}" \
    --duration "$DUR" --output "$OUT/$label" --label "$label" > "$OUT/$label.txt" 2>&1 || echo "load exit $?" >> "$OUT/$label.txt"
  local c1=0; for j in "${js[@]}"; do c1=$((c1 + $(cpu "$j"))); done
  echo "$label nodes_cpu_ticks $((c1 - c0)) redis_cpu_ticks $(( $(cpu "$rpid") - r0 ))" >> "$OUT/cpu.txt"
  cleanup
}
: > "$OUT/cpu.txt"
for n in "${NODES[@]}"; do run "$n"; done
cat "$OUT/cpu.txt"; for n in "${NODES[@]}"; do echo "== $n"; grep -h "p99\|lost\|same-node\|cross-node\|deliver" "$OUT/redis-$n.txt" | head -12; done
