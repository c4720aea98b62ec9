#!/usr/bin/env bash
# ./build.sh bench: every benchmark in one command (see BENCHMARKS.md).
#   1. native: Criterion (benches/engine) on generated data, 1k/10k/100k documents;
#   2. Node: the wasm build (www/pkg) beside mingo and a hand-written loop
#      (bench/node.mjs), in several separate processes;
#   3. the page in headless Chromium (bench/browser.mjs), when www/ has it.
# stdout: BENCHMARKS.md-ready markdown; progress goes to stderr. Everything
# lands in <cargo target dir>/bench/ (results.json, report.md, logs).
# A busy machine gives figures but no verdict: the report says so when the
# 1-minute load at the start is above MQLPLAY_BENCH_MAX_LOAD, or when another
# build or browser runs at the start, before measuring or at the end.
# Knobs: MQLPLAY_BENCH_ONLY=<regex over case ids> runs a subset;
#        MQLPLAY_BENCH_QUICK=1 shortens every measurement (for trying the harness);
#        MQLPLAY_BENCH_SCALE=0.1 runs the Node cases on a tenth of the data;
#        MQLPLAY_BENCH_PROCESSES=3 Node processes (each one sample);
#        MQLPLAY_BENCH_MAX_LOAD=0.5 the quiet machine's 1-minute load at the start;
#        MQLPLAY_BENCH_SKIP=native,browser leaves parts out (a comma list; also
#        node, and build: measure www/pkg and www/dist as they are).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
printf '==> load average (1, 5, 15 min) at the start: %s\n' "$LOAD_START" >&2

# log, target_dir, the ensure_* installers, build_wasm_package, build_page.
. tools/setup.sh
TARGET=$(target_dir)
OUT=${MQLPLAY_BENCH_OUT:-$TARGET/bench}
mkdir -p "$OUT"
ONLY=${MQLPLAY_BENCH_ONLY:-.}
SCALE=${MQLPLAY_BENCH_SCALE:-1}
PROCESSES=${MQLPLAY_BENCH_PROCESSES:-3}
MAX_LOAD=${MQLPLAY_BENCH_MAX_LOAD:-0.5}
SKIP=",${MQLPLAY_BENCH_SKIP:-},"
skipped() { [[ $SKIP == *",$1,"* ]]; }
# Other work that competes for the cores: compilers, linkers, bundlers, browsers.
BUSY_PROCS=${MQLPLAY_BENCH_BUSY_PROCS:-'^(cargo|rustc|cc1|cc1plus|ld|ld\.lld|rust-lld|wasm-opt|wasm-bindgen|esbuild|chromium|chrome)$'}

# ---- is the machine quiet? ------------------------------------------------------------
# Each reason lands in $OUT/busy.txt; the report then gives no verdict.
: >"$OUT/busy.txt"
busy() { echo "$1" >>"$OUT/busy.txt"; log "busy machine: $1"; }
# Processes matching BUSY_PROCS that are not this script's own.
foreign_work() {
  ps -eo pid=,ppid=,comm= | awk -v self=$$ -v re="$BUSY_PROCS" '
    { parent[$1] = $2; name[$1] = $3 }
    END {
      for (p in name) {
        if (name[p] !~ re) continue
        q = p; ours = 0
        while (q > 1) { if (q == self) { ours = 1; break } q = parent[q] }
        if (!ours) n[name[p]]++
      }
      for (c in n) printf "%s%s x%d", (k++ ? ", " : ""), c, n[c]
    }'
}
check_quiet() { # phase
  # A browser closed a moment ago leaves processes that are no longer our
  # children while they exit: only what is still there 4 s later counts.
  local others i
  for i in 1 2 3; do
    others=$(foreign_work)
    [ -n "$others" ] && [ "$i" -lt 3 ] || break
    sleep 2
  done
  [ -z "$others" ] || busy "other work running $1: $others"
}
if awk -v l="${LOAD_START%% *}" -v m="$MAX_LOAD" 'BEGIN { exit !(l > m) }'; then
  busy "Load average $LOAD_START at the start: the 1-minute load is above $MAX_LOAD"
fi
check_quiet "at the start"
if [ "${MQLPLAY_BENCH_QUICK:-}" = 1 ]; then
  CRITERION_ARGS=(--warm-up-time 0.2 --measurement-time 0.5)
  NODE_ROUNDS=3
else
  # Sized so that the whole run, builds included, fits in 10 minutes on 2 cores.
  CRITERION_ARGS=(--warm-up-time 0.2 --measurement-time 0.8)
  NODE_ROUNDS=5
fi

# ---- the native benchmarks build in the background ------------------------------
# The package benches/engine (Criterion) in a target dir of its own: it then runs
# beside the tool installs and the wasm build below (cargo locks a target dir per
# build, and each fat-LTO link uses one core), and never shares the engine's
# hash-free library file with the CLI's build.
if ! skipped native; then
  log "building the native benchmarks in the background (release profile)"
  # No fat LTO and 16 codegen units for this build (the release profile has fat LTO
  # and one unit, for the CLI): 4.6 CPU-min instead of 6.9, spread over both cores.
  CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 \
  CARGO_TARGET_DIR="$TARGET/bench-native" cargo bench -p mqlplay-bench --bench engine --no-run \
    --message-format=json-render-diagnostics >"$OUT/native-build.json" 2>"$OUT/native-build.log" &
  native_build=$!
  trap 'kill "$native_build" 2>/dev/null || true' EXIT
fi

# ---- tools the harnesses need (idempotent; quiet when already there) --------------
# wasm-bindgen-cli installs with the wasm build below (build_wasm_package), the
# harnesses' npm packages after it.
if [ ! -x /usr/bin/chromium ]; then
  log "installing Debian's chromium (for the page's figures)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || true
fi

# ---- the machine and the versions -------------------------------------------------
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
MQB_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ) \
MQB_CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1) \
MQB_CORES=$(nproc) \
MQB_MEM=$(free -h 2>/dev/null | awk '/^Mem:/ {print $2}') \
MQB_OS=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME, Linux $(uname -r)") \
MQB_RUSTC=$(rustc --version) \
MQB_NODE=$(node --version) \
MQB_CRITERION=$(awk '/^name = "criterion"$/ {getline; print $3}' Cargo.lock | tr -d '"') \
MQB_CHROMIUM=$( (/usr/bin/chromium --version 2>/dev/null || echo "Chromium not installed") | head -1) \
MQB_COMMIT=$commit \
MQB_LOAD="$LOAD_START" \
node -e '
  const e = process.env;
  const meta = { date: e.MQB_DATE, cpu: e.MQB_CPU, cores: Number(e.MQB_CORES), memory: e.MQB_MEM, os: e.MQB_OS,
    rustc: e.MQB_RUSTC, node: e.MQB_NODE, criterion: e.MQB_CRITERION, chromium: e.MQB_CHROMIUM,
    commit: e.MQB_COMMIT, command: "./build.sh bench", loadavg_start: e.MQB_LOAD };
  require("fs").writeFileSync(process.argv[1], JSON.stringify(meta, null, 1));
' "$OUT/meta.json"

# ---- builds (release, as shipped) ---------------------------------------------------
# The wasm package and the page, exactly as build.sh builds them: what the page ships.
# MQLPLAY_BENCH_SKIP=build measures www/pkg and www/dist as they are (for trying the harness).
if skipped build; then
  [ -f www/pkg/mqlplay_bg.wasm ] && [ -d www/dist ] || { log "no www/pkg or www/dist to measure: build them first"; exit 1; }
  log "builds skipped: measuring www/pkg and www/dist as they are"
else
  build_wasm_package
  build_page
fi
ensure_npm bench
if ! skipped native; then
  log "waiting for the native benchmarks' build (log: $OUT/native-build.log)"
  wait "$native_build" || { tail -30 "$OUT/native-build.log" >&2; log "building the native benchmarks failed"; exit 1; }
  BENCH_EXE=$(node -e 'const s = require("fs").readFileSync(process.argv[1], "utf8");
    const exe = s.split("\n").filter(Boolean).map((l) => JSON.parse(l))
      .filter((m) => m.reason === "compiler-artifact" && m.target?.name === "engine" && m.executable)
      .map((m) => m.executable).pop();
    if (!exe) process.exit(1);
    console.log(exe);' "$OUT/native-build.json") || { log "the native build named no benchmark executable"; exit 1; }
fi
log "builds: $(($(date +%s) - started)) s"
# This script's own builds raise the load average for minutes after they end:
# from here on only other work counts.
LOAD_MEASURE=$(cut -d' ' -f1-3 /proc/loadavg)
check_quiet "before measuring"

# ---- 1. native ------------------------------------------------------------------------
rm -rf "$OUT/criterion" "$OUT/native-notes.json"
if ! skipped native; then
  log "native benchmarks (Criterion; log: $OUT/native.log)"
  t=$(date +%s)
  CRITERION_HOME="$OUT/criterion" MQLPLAY_BENCH_OUT="$OUT" MQLPLAY_BENCH_ONLY="$ONLY" \
    "$BENCH_EXE" --bench "${CRITERION_ARGS[@]}" >"$OUT/native.log" 2>&1 \
    || { tail -30 "$OUT/native.log" >&2; log "native benchmarks failed"; exit 1; }
  grep '^bench:' "$OUT/native.log" >&2 || true
  log "native: $(($(date +%s) - t)) s"
fi

# ---- 2. Node: wasm beside mingo and the hand loop, in separate processes ----------------
# One process is one sample: V8 spreads its threads over the cores differently in
# each, and a case's time follows that (BENCHMARKS.md); the report gives the median
# of the processes' medians and their spread.
rm -f "$OUT"/node-*.json "$OUT/node.json"  # node-fast-*.json too
node_status=0
if ! skipped node; then
  log "Node: wasm beside mingo, $PROCESSES processes"
  t=$(date +%s)
  for i in $(seq 1 "$PROCESSES"); do
    status=0
    node --expose-gc bench/node.mjs --pkg www/pkg --rounds "$NODE_ROUNDS" --only "$ONLY" --scale "$SCALE" \
      --out "$OUT/node-$i.json" || status=$?
    if [ ! -f "$OUT/node-$i.json" ] || [ "$status" = 2 ]; then log "the Node benchmark failed (process $i)"; exit 1; fi
    [ "$status" = 0 ] || node_status=$status
  done
  log "Node: $(($(date +%s) - t)) s"
  # The page's fast engine (fetched for large data), the same way: the small engine's glue
  # with the fast module (tools/setup.sh checks that the glue is the same).
  if [ -f www/pkg/mqlplay_fast_bg.wasm ]; then
    log "Node: the fast engine, $PROCESSES processes"
    t=$(date +%s)
    rm -rf "$OUT/pkg-fast" && mkdir -p "$OUT/pkg-fast"
    cp www/pkg/mqlplay.js www/pkg/collation.postcard "$OUT/pkg-fast/"
    cp www/pkg/mqlplay_fast_bg.wasm "$OUT/pkg-fast/mqlplay_bg.wasm"
    for i in $(seq 1 "$PROCESSES"); do
      status=0
      node --expose-gc bench/node.mjs --pkg "$OUT/pkg-fast" --rounds "$NODE_ROUNDS" --only "$ONLY" --scale "$SCALE" \
        --out "$OUT/node-fast-$i.json" || status=$?
      if [ ! -f "$OUT/node-fast-$i.json" ] || [ "$status" = 2 ]; then log "the Node benchmark failed (fast engine, process $i)"; exit 1; fi
      [ "$status" = 0 ] || node_status=$status
    done
    log "Node, fast engine: $(($(date +%s) - t)) s"
  fi
fi

# ---- 3. the page --------------------------------------------------------------------------
rm -f "$OUT/browser.json"
if ! skipped browser; then
  check_quiet "before the browser"
  log "the page in headless Chromium"
  t=$(date +%s)
  node bench/browser.mjs --www www --out "$OUT/browser.json" || log "the browser benchmark failed (see above)"
  log "browser: $(($(date +%s) - t)) s"
fi

# ---- report -------------------------------------------------------------------------------
check_quiet "at the end"
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average (1, 5, 15 min) at the end: $LOAD_END"
node -e '
  const fs = require("fs");
  const [f, duration, busyFile, loadMeasure, loadEnd, maxLoad, processes, scale, skip] = process.argv.slice(1);
  const m = JSON.parse(fs.readFileSync(f, "utf8"));
  const reasons = fs.readFileSync(busyFile, "utf8").split("\n").filter(Boolean);
  Object.assign(m, { duration_s: Number(duration), loadavg_measuring: loadMeasure, loadavg_end: loadEnd,
    max_load: Number(maxLoad), busy: reasons.length > 0, busy_reasons: reasons,
    node_processes: Number(processes), scale: Number(scale), skipped: skip.split(",").filter(Boolean) });
  fs.writeFileSync(f, JSON.stringify(m, null, 1));
' "$OUT/meta.json" "$(($(date +%s) - started))" "$OUT/busy.txt" "$LOAD_MEASURE" "$LOAD_END" "$MAX_LOAD" \
  "$PROCESSES" "$SCALE" "$SKIP"
node bench/report.mjs "$OUT" | tee "$OUT/report.md"
if [ -s "$OUT/busy.txt" ]; then
  log "the machine was busy (see above): figures printed, no verdict written"
fi
log "done in $(($(date +%s) - started)) s: $OUT/results.json, $OUT/report.md"
# Different answers from the two engines make the run fail (after the report).
exit "$node_status"
