#!/usr/bin/env bash
# mqlplay's one build script. Installs what is missing (idempotently, quietly
# when already there), then:
#   ./build.sh          build the CLI (release) and the page (www/pkg, www/dist)
#   ./build.sh serve    build, then serve www/ on http://127.0.0.1:8080
#   ./build.sh test     every test: cargo tests, wasm tests (Node), browser tests (Chromium)
#   ./build.sh bench    benchmarks (see BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")"

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' Cargo.toml)
export CARGO_TERM_QUIET=${CARGO_TERM_QUIET:-false}

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

ensure_rust_tools() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about two minutes)"
    # No --locked: its lock file wants a crate version this registry lacks.
    cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
}

ensure_node_modules() {
  if [ -f www/package.json ]; then
    if [ ! -d www/node_modules ] || [ www/package-lock.json -nt www/node_modules/.package-lock.json ]; then
      log "npm ci (www/)"
      (cd www && npm ci --no-audit --no-fund --loglevel=error)
    fi
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    log "installing Debian's chromium and chromium-driver"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

# Where cargo puts its output (honours CARGO_TARGET_DIR, cargo config and wrappers).
target_dir() {
  cargo metadata --format-version 1 --no-deps 2>/dev/null \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null \
    || echo "${CARGO_TARGET_DIR:-target}"
}

build_cli() {
  log "building the CLI (target/release/mqlplay)"
  cargo build --release --bin mqlplay
}

build_wasm() {
  ensure_rust_tools
  log "building the wasm engine (www/pkg)"
  cargo build --profile wasm-release --lib --target wasm32-unknown-unknown
  rm -rf www/pkg
  wasm-bindgen --target web --no-typescript --out-dir www/pkg "$(target_dir)/wasm32-unknown-unknown/wasm-release/mqlplay.wasm"
  if [ -x www/node_modules/.bin/wasm-opt ]; then
    # Strip names and producers, merge identical functions and order functions by use:
    # rustc's opt-level z has done the size work, and -Oz or -Os on top make the gzipped
    # module larger (measured on this tree, gzip -9: 665,757 bytes stripped only,
    # 663,390 with these two passes, 809,358 after -Os), which is what the page downloads.
    log "wasm-opt: strip the name section, merge duplicate functions"
    www/node_modules/.bin/wasm-opt -O0 --merge-similar-functions --duplicate-function-elimination --reorder-functions \
      --strip-debug --strip-producers www/pkg/mqlplay_bg.wasm -o www/pkg/mqlplay_bg.wasm
  fi
}

build_page() {
  ensure_node_modules
  if [ -f www/package.json ] && grep -q '"build"' www/package.json; then
    log "bundling the page (www/dist)"
    (cd www && npm run --silent build)
  fi
}

build_all() {
  build_cli
  ensure_node_modules
  build_wasm
  build_page
}

serve() {
  build_all
  log "serving www/ on http://127.0.0.1:8080 (Ctrl+C to stop)"
  echo "http://127.0.0.1:8080"
  exec python3 tools/serve.py 8080 www
}

run_tests() {
  ensure_rust_tools
  log "cargo test (native)"
  cargo test
  log "wasm tests (wasm-bindgen-test under Node)"
  cargo test --target wasm32-unknown-unknown --test wasm_api
  ensure_chromium
  # The page only: the release CLI is not needed by any test.
  ensure_node_modules
  build_wasm
  build_page
  if [ -f www/package.json ] && grep -q '"test:browser"' www/package.json; then
    log "browser tests (headless Chromium)"
    # The debug CLI built by `cargo test` above: the tests check it makes the page's links.
    (cd www && MQLPLAY_CLI="$(target_dir)/debug/mqlplay" npm run --silent test:browser)
  fi
  log "all tests passed"
}

case "${1:-build}" in
  build) build_all ;;
  serve) serve ;;
  test) run_tests ;;
  bench)
    if [ -x tools/bench.sh ]; then exec tools/bench.sh; else echo "no benchmarks yet" >&2; exit 1; fi ;;
  *) echo "usage: ./build.sh [build|serve|test|bench]" >&2; exit 2 ;;
esac
