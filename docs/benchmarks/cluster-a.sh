#!/usr/bin/env bash
# Profile (a) on 1 node and on 2 Oort nodes (clients split), raw client; server CPU from /proc.
# Usage: docs/benchmarks/cluster-a.sh OUTDIR [RATE] [DURATION]  (env: CLIENTS, RAMP, WARM, SKIP1=1 to skip the one-node run,
#   NODE_ARGS: more arguments for every node, e.g. "--set oort.fanOutLanes=2"); vmstat 1 is logged during each load run.
set -euo pipefail
OUT="$1"; RATE="${2:-1000}"; DUR="${3:-60s}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$OUT"
export JAVA_OPTS="${JAVA_OPTS:--Xms1g -Xmx1g}"
SECRET="$OUT/secret"; head -c 48 /dev/urandom | base64 > "$SECRET"; chmod 600 "$SECRET"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
javapid() { # the java child of a bin/bayeux launcher (exec'd or child)
  local p="$1"; local c; c=$(pgrep -P "$p" java || true); echo "${c:-$p}"; }
start_node() { # port log args...
  local port="$1" log="$2"; shift 2
  # shellcheck disable=SC2086
  "$ROOT/bin/bayeux" server --port "$port" --host 127.0.0.1 "$@" ${NODE_ARGS:-} > "$log" 2>&1 &
  pids+=($!)
  for i in $(seq 1 300); do grep -q "Listening on" "$log" && return 0; sleep 0.2; done
  echo "node on $port did not start" >&2; cat "$log" >&2; exit 1
}
load() { # label urls
  vmstat 1 > "$OUT/$1.vmstat.txt" & local vm=$!
  "$ROOT/bin/bayeux" load --client raw --quiet --url "$2" --transport websocket --clients "${CLIENTS:-1000}" --rooms 100 \
    --rooms-per-client 10 --rate "$RATE" --size 50 --ramp-up "${RAMP:-10s}" --warm-up "${WARM:-10s}" --duration "$DUR" \
    --output "$OUT/$1" --label "$1" > "$OUT/$1.txt" 2>&1 || echo "load $1 exit $?" >> "$OUT/$1.txt"
  kill "$vm" 2>/dev/null || true
}
run1() {
  pids=()
  start_node 18081 "$OUT/one.log"
  local j; j=$(javapid "${pids[0]}"); local c0; c0=$(cpu "$j")
  load one http://127.0.0.1:18081/bayeux
  echo "one cpu_ticks $(( $(cpu "$j") - c0 ))" >> "$OUT/cpu.txt"
  cleanup; pids=()
}
run2() {
  pids=()
  local oa=(--oort-url http://127.0.0.1:18081/bayeux --oort-secret-file "$SECRET" --oort-channels '/load/**')
  start_node 18081 "$OUT/a.log" "${oa[@]}"
  start_node 18082 "$OUT/b.log" --oort-url http://127.0.0.1:18082/bayeux --oort-secret-file "$SECRET" \
     --oort-channels '/load/**' --oort-seeds http://127.0.0.1:18081/bayeux
  for i in $(seq 1 150); do grep -qi "joined" "$OUT/b.log" && grep -qi "joined" "$OUT/a.log" && break; sleep 0.2; done
  local ja jb; ja=$(javapid "${pids[0]}"); jb=$(javapid "${pids[1]}")
  local a0 b0; a0=$(cpu "$ja"); b0=$(cpu "$jb")
  load two http://127.0.0.1:18081/bayeux,http://127.0.0.1:18082/bayeux
  echo "two cpu_ticks $(( $(cpu "$ja") - a0 + $(cpu "$jb") - b0 ))" >> "$OUT/cpu.txt"
  cleanup; pids=()
}
: > "$OUT/cpu.txt"
[ -z "${SKIP1:-}" ] && run1
run2
cat "$OUT/cpu.txt"; grep -h "p99\|lost\|same-node\|cross-node" "$OUT"/one.txt "$OUT"/two.txt | head -40
