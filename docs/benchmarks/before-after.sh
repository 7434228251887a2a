#!/usr/bin/env bash
# Profiles (c) and (d) of docs/benchmarks.md for two builds of this server in one run, alternating rounds: each round
# starts the load server of one checkout (its tools/bayeux-load-tools, or load-tools in a checkout older than the
# tree of folders), points the raw client of the AFTER checkout at it, and stops it. Both checkouts must be built
# (bin/bayeux build, or mvn -DskipTests package -pl tools/bayeux-load-tools -am).
# Usage: docs/benchmarks/before-after.sh BEFORE_CHECKOUT AFTER_CHECKOUT OUTPUT_DIR [ROUNDS]
# Per round and checkout it writes OUTPUT_DIR/{c,d}-round-N-{before,after}/result.json; the summary at the end gives
# the medians: server CPU from the first publish and p99 at (c), idle heap per client at (d) (heap after a full GC,
# after the clients connected minus before, over the clients).
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,9p "$0" >&2; exit 2; }
BEFORE="$(cd "$1" && pwd)"; AFTER="$(cd "$2" && pwd)"; OUT="$3"; ROUNDS="${4:-3}"
mkdir -p "$OUT"
load_cp() {
  local module
  for module in tools/bayeux-load-tools load-tools; do
    if [ -f "$1/$module/target/runtime-classpath.txt" ]; then
      echo "$1/$module/target/classes:$(cat "$1/$module/target/runtime-classpath.txt")"
      return
    fi
  done
  echo "before-after: $1 is not built" >&2
  exit 1
}
BEFORE_CP="$(load_cp "$BEFORE")"; AFTER_CP="$(load_cp "$AFTER")"
JOPTS="${JAVA_OPTS:--Xms1g -Xmx1g}"
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true' EXIT
start_server() { # $1 class path, $2 directory; sets SERVER_PID and URL
  java $JOPTS -Dlogback.configurationFile=logback-load.xml -cp "$1" org.bayeux.load.server.LoadServer \
    --port 0 --host 127.0.0.1 > "$2/server.out" 2> "$2/server.err" &
  SERVER_PID=$!
  local i
  for i in $(seq 1 120); do
    URL="$(sed -n 's/^LOAD-SERVER-READY \(http:[^ ]*\)$/\1/p' "$2/server.out")"
    [ -n "$URL" ] && return 0
    sleep 0.5
  done
  echo "before-after: the load server in $2 was not ready" >&2
  exit 1
}
C_ARGS=(--transport websocket --clients 10000 --rooms 100 --rooms-per-client 1 --rate 200 --size 50 --publishers 1
  --ramp-up 30s --warm-up 10s --duration 60s)
D_ARGS=(--idle --transport websocket --clients 10000 --rooms 100 --ramp-up 20s)
for profile in c d; do
  for round in $(seq 1 "$ROUNDS"); do
    for build in before after; do
      dir="$OUT/$profile-round-$round-$build"
      mkdir -p "$dir"
      start_server "$([ "$build" = before ] && echo "$BEFORE_CP" || echo "$AFTER_CP")" "$dir"
      args=("${C_ARGS[@]}"); [ "$profile" = d ] && args=("${D_ARGS[@]}")
      java $JOPTS -Dlogback.configurationFile=logback-load.xml -cp "$AFTER_CP" org.bayeux.load.LoadMain --client raw \
        --url "$URL" --output "$dir" --label "$build round $round" --quiet "${args[@]}" > "$dir/load.txt" 2>&1 || true
      kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
      echo "before-after: $profile round $round $build done" >&2
    done
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for build in ("before", "after"):
    c = [json.load(open(f"{out}/c-round-{r}-{build}/result.json")) for r in range(1, rounds + 1)]
    d = [json.load(open(f"{out}/d-round-{r}-{build}/result.json")) for r in range(1, rounds + 1)]
    idle = [(x["serverAfter"]["heapUsedBytes"] - x["serverBefore"]["heapUsedBytes"])
            / (x["serverAfter"]["sessions"] - x["serverBefore"]["sessions"]) for x in d]
    print(f"{build}: (c) server CPU s {[x['serverLoadCpuSeconds'] for x in c]} median "
          f"{statistics.median(x['serverLoadCpuSeconds'] for x in c)}, p99 ms median "
          f"{statistics.median(x['latency']['p99'] for x in c)}, lost {sum(x['messages']['lost'] for x in c)}; "
          f"(d) idle heap per client B {[round(b) for b in idle]} median {round(statistics.median(idle))}")
PY
