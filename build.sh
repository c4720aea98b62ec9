#!/usr/bin/env bash
# mqlplay's one build script. Installs what is missing (idempotently, quietly
# when already there), then:
#   ./build.sh          build the CLI (release) and the page (www/pkg, www/dist)
#   ./build.sh serve    build the page, then serve www/ on http://127.0.0.1:${PORT:-8080}
#   ./build.sh test     every test: cargo tests, wasm tests (Node), browser tests (Chromium)
#   ./build.sh bench    benchmarks (see BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")"

export CARGO_TERM_QUIET=${CARGO_TERM_QUIET:-false}
# log, target_dir, the ensure_* installers, build_wasm_package, build_page.
. tools/setup.sh

build_cli() {
  log "building the CLI (target/release/mqlplay)"
  cargo build --release --bin mqlplay
}

build_all() {
  build_cli
  build_wasm_package
  build_page
}

# The page only (the CLI is not needed to serve it); PORT picks the port.
serve() {
  local port=${PORT:-8080}
  case "$port" in
    '' | *[!0-9]*) echo "PORT must be a port number, got '$port'" >&2; exit 2 ;;
  esac
  build_wasm_package
  build_page
  log "serving www/ on http://127.0.0.1:$port (Ctrl+C to stop)"
  echo "http://127.0.0.1:$port"
  exec python3 tools/serve.py "$port" www
}

run_tests() {
  ensure_wasm_target
  # wasm-bindgen-cli (for the wasm tests) installs beside the native tests' build.
  ensure_wasm_bindgen &
  local tools=$!
  log "cargo test (native)"
  cargo test || { kill "$tools" 2>/dev/null; exit 1; }
  wait "$tools"
  log "wasm tests (wasm-bindgen-test under Node)"
  cargo test --target wasm32-unknown-unknown --test wasm_api
  ensure_chromium
  # The page only: the release CLI is not needed by any test.
  build_wasm_package
  build_page
  log "browser tests (headless Chromium)"
  # The debug CLI built by `cargo test` above: the tests check it makes the page's links.
  (cd www && MQLPLAY_CLI="$(target_dir)/debug/mqlplay" npm run --silent test:browser)
  log "all tests passed"
}

case "${1:-build}" in
  build) build_all ;;
  serve) serve ;;
  test) run_tests ;;
  bench) exec tools/bench.sh ;;
  *) echo "usage: ./build.sh [build|serve|test|bench]" >&2; exit 2 ;;
esac
