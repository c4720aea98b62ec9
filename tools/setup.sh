# Sourced by build.sh and tools/bench.sh: installing what is missing (idempotently,
# quietly when already there) and building the page's wasm package, in one place.

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Where cargo puts its output (honours CARGO_TARGET_DIR, cargo config and wrappers).
target_dir() {
  cargo metadata --format-version 1 --no-deps 2>/dev/null \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null \
    || echo "${CARGO_TARGET_DIR:-target}"
}

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' Cargo.toml)

ensure_wasm_target() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

# wasm-bindgen-cli, the version Cargo.toml pins. A build tool, so built for a short build
# rather than top speed: without TLS (the test runner only talks plain HTTP to a local
# browser driver) and mostly unoptimised (BENCHMARKS.md, "Build notes", has the figures).
ensure_wasm_bindgen() {
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ] \
    || ! command -v wasm-bindgen-test-runner >/dev/null; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes)"
    # No --locked: its lock file wants a crate version this registry lacks. Its own temporary
    # target dir (no CARGO_TARGET_DIR), so it does not wait on the lock of a build beside it.
    env -u CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false \
      CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features \
      --config 'profile.release.package.walrus.opt-level=1' \
      --config 'profile.release.package.wasmparser.opt-level=1'
  fi
}

ensure_npm() { # dir
  if [ -f "$1/package-lock.json" ] \
    && { [ ! -d "$1/node_modules" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; }; then
    log "npm ci ($1/)"
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    log "installing Debian's chromium and chromium-driver"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  # Japanese and Korean pages (www/i18n/) need CJK glyphs in the browser tests' screenshots.
  if ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then
    log "installing Debian's fonts-noto-cjk"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null
  fi
}

# The page's engine (www/pkg): the crate for wasm32 with the size profile, wasm-bindgen's
# glue, then wasm-opt. On a fresh machine the engine compiles while wasm-bindgen-cli
# installs beside it (each build has serial stretches: the other fills the second core).
build_wasm_package() {
  ensure_wasm_target
  log "building the wasm engine (www/pkg)"
  cargo build --profile wasm-release --lib --target wasm32-unknown-unknown &
  local engine=$!
  if ! { ensure_wasm_bindgen && ensure_npm www; }; then
    kill "$engine" 2>/dev/null
    return 1
  fi
  wait "$engine"
  rm -rf www/pkg
  wasm-bindgen --target web --no-typescript --out-dir www/pkg "$(target_dir)/wasm32-unknown-unknown/wasm-release/mqlplay.wasm"
  # The collation data the page fetches only for a script with a collation (the wasm
  # carries none; src/storage/collation/data.rs), written by the CLI from its compiled data.
  log "writing the collation data (www/pkg/collation.postcard)"
  cargo run --quiet --release --bin mqlplay -- collation-data www/pkg/collation.postcard
  # What the page downloads is the gzipped module: -Oz without inlining, local-cse or
  # merge-similar-functions (with them gzip compresses it worse), constant offsets folded
  # (--low-memory-unused: the stack takes the first 1 MiB from its top down), repeated
  # until it stops shrinking, names and target features stripped. Figures: BENCHMARKS.md,
  # "Build notes". (This binaryen is single-threaded JS.)
  # wasm-opt is the slow step: its output is kept, keyed by its input, flags and version,
  # and reused when none changed (an unchanged tree serves at once).
  local flags=(--low-memory-unused -Oz --always-inline-max-function-size=0
    --flexible-inline-max-function-size=0 --one-caller-inline-max-function-size=0
    --skip-pass=local-cse --skip-pass=merge-similar-functions --duplicate-function-elimination
    --converge --strip-debug --strip-producers --strip-target-features)
  local cache key
  cache="$(target_dir)/wasm-opt-cache"
  key=$( { sha256sum < www/pkg/mqlplay_bg.wasm; echo "${flags[*]}"; www/node_modules/.bin/wasm-opt --version; } \
    | sha256sum | cut -c1-32)
  if [ -f "$cache/$key.wasm" ]; then
    log "wasm-opt: input unchanged, reusing its output"
    cp "$cache/$key.wasm" www/pkg/mqlplay_bg.wasm
    build_fast_wasm
    return
  fi
  log "wasm-opt: -Oz without inlining, until it converges; strip names"
  www/node_modules/.bin/wasm-opt "${flags[@]}" www/pkg/mqlplay_bg.wasm -o www/pkg/mqlplay_bg.wasm
  mkdir -p "$cache"
  rm -f "$cache"/*.wasm # one entry: the last build's
  cp www/pkg/mqlplay_bg.wasm "$cache/$key.wasm"
  build_fast_wasm
}

# The fast engine (www/pkg/mqlplay_fast_bg.wasm): the crate at opt-level 2, which the page
# fetches only for large data (www/src/engine.js). It runs under the small engine's
# JavaScript glue, so the build fails if wasm-bindgen writes different glue for it.
# wasm-opt only strips it (its optimising passes gain little on rustc's O2 output).
build_fast_wasm() {
  log "building the fast wasm engine (www/pkg/mqlplay_fast_bg.wasm)"
  cargo build --profile wasm-fast --lib --target wasm32-unknown-unknown
  local out
  out=$(mktemp -d)
  wasm-bindgen --target web --no-typescript --out-dir "$out" "$(target_dir)/wasm32-unknown-unknown/wasm-fast/mqlplay.wasm"
  if ! cmp -s "$out/mqlplay.js" www/pkg/mqlplay.js; then
    log "the fast engine's JavaScript glue differs from the small engine's"
    rm -rf "$out"
    return 1
  fi
  www/node_modules/.bin/wasm-opt --strip-debug --strip-producers --strip-target-features \
    "$out/mqlplay_bg.wasm" -o www/pkg/mqlplay_fast_bg.wasm
  rm -rf "$out"
}

# The page's bundle (www/dist: CodeMirror and the page's scripts, by esbuild).
build_page() {
  ensure_npm www
  log "bundling the page (www/dist)"
  (cd www && npm run --silent build >&2)
}
