#!/usr/bin/env bash
# ./build.sh bench: every benchmark in one command (see BENCHMARKS.md).
#   1. native: Criterion (benches/engine) on generated data, 1k/10k/100k documents;
#   2. Node: the wasm build (www/pkg) beside mingo in one process (bench/node.mjs);
#   3. the page in headless Chromium (bench/browser.mjs), when www/ has it.
# stdout: BENCHMARKS.md-ready markdown; progress goes to stderr. Everything
# lands in <cargo target dir>/bench/ (results.json, report.md, logs).
# Knobs: MQLPLAY_BENCH_ONLY=<regex over case ids> runs a subset;
#        MQLPLAY_BENCH_QUICK=1 shortens every measurement (for trying the harness).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

# log, target_dir, the ensure_* installers, build_wasm_package, build_page.
. tools/setup.sh
TARGET=$(target_dir)
OUT=${MQLPLAY_BENCH_OUT:-$TARGET/bench}
mkdir -p "$OUT"
ONLY=${MQLPLAY_BENCH_ONLY:-.}
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
log "building the native benchmarks in the background (release profile)"
# No fat LTO and 16 codegen units for this build (the release profile has fat LTO
# and one unit, for the CLI): 4.6 CPU-min instead of 6.9, spread over both cores.
CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 \
CARGO_TARGET_DIR="$TARGET/bench-native" cargo bench -p mqlplay-bench --bench engine --no-run \
  --message-format=json-render-diagnostics >"$OUT/native-build.json" 2>"$OUT/native-build.log" &
native_build=$!
trap 'kill "$native_build" 2>/dev/null || true' EXIT

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
MQB_LOAD="$(cut -d' ' -f1-3 /proc/loadavg)" \
node -e '
  const e = process.env;
  const meta = { date: e.MQB_DATE, cpu: e.MQB_CPU, cores: Number(e.MQB_CORES), memory: e.MQB_MEM, os: e.MQB_OS,
    rustc: e.MQB_RUSTC, node: e.MQB_NODE, criterion: e.MQB_CRITERION, chromium: e.MQB_CHROMIUM,
    commit: e.MQB_COMMIT, command: "./build.sh bench", loadavg_start: e.MQB_LOAD };
  require("fs").writeFileSync(process.argv[1], JSON.stringify(meta, null, 1));
' "$OUT/meta.json"

# ---- builds (release, as shipped) ---------------------------------------------------
# The wasm package and the page, exactly as build.sh builds them: what the page ships.
build_wasm_package
build_page
ensure_npm bench
log "waiting for the native benchmarks' build (log: $OUT/native-build.log)"
wait "$native_build" || { tail -30 "$OUT/native-build.log" >&2; log "building the native benchmarks failed"; exit 1; }
BENCH_EXE=$(node -e 'const s = require("fs").readFileSync(process.argv[1], "utf8");
  const exe = s.split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .filter((m) => m.reason === "compiler-artifact" && m.target?.name === "engine" && m.executable)
    .map((m) => m.executable).pop();
  if (!exe) process.exit(1);
  console.log(exe);' "$OUT/native-build.json") || { log "the native build named no benchmark executable"; exit 1; }
log "builds: $(($(date +%s) - started)) s"

# ---- 1. native ------------------------------------------------------------------------
log "native benchmarks (Criterion; log: $OUT/native.log)"
t=$(date +%s)
rm -rf "$OUT/criterion"
CRITERION_HOME="$OUT/criterion" MQLPLAY_BENCH_OUT="$OUT" MQLPLAY_BENCH_ONLY="$ONLY" \
  "$BENCH_EXE" --bench "${CRITERION_ARGS[@]}" >"$OUT/native.log" 2>&1 \
  || { tail -30 "$OUT/native.log" >&2; log "native benchmarks failed"; exit 1; }
grep '^bench:' "$OUT/native.log" >&2 || true
log "native: $(($(date +%s) - t)) s"

# ---- 2. Node: wasm beside mingo ---------------------------------------------------------
log "Node: wasm beside mingo"
t=$(date +%s)
node_status=0
node --expose-gc bench/node.mjs --pkg www/pkg --rounds "$NODE_ROUNDS" --only "$ONLY" --out "$OUT/node.json" || node_status=$?
if [ ! -f "$OUT/node.json" ] || [ "$node_status" = 2 ]; then log "the Node benchmark failed"; exit 1; fi
log "Node: $(($(date +%s) - t)) s"

# ---- 3. the page --------------------------------------------------------------------------
log "the page in headless Chromium"
t=$(date +%s)
node bench/browser.mjs --www www --out "$OUT/browser.json" || log "the browser benchmark failed (see above)"
log "browser: $(($(date +%s) - t)) s"

# ---- report -------------------------------------------------------------------------------
node -e '
  const f = process.argv[1]; const m = JSON.parse(require("fs").readFileSync(f, "utf8"));
  m.duration_s = Number(process.argv[2]);
  m.loadavg_end = require("fs").readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  require("fs").writeFileSync(f, JSON.stringify(m, null, 1));
' "$OUT/meta.json" "$(($(date +%s) - started))"
node bench/report.mjs "$OUT" | tee "$OUT/report.md"
log "done in $(($(date +%s) - started)) s: $OUT/results.json, $OUT/report.md"
# Different answers from the two engines make the run fail (after the report).
exit "$node_status"
