#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_<name>.cpp, CMake option EDGESTREAM_FUZZ=ON, clang) and
# runs each for a bounded time on a COPY of its seed corpus fuzz/corpus/<name>/ (the repository's
# corpus never grows here; new inputs stay in $BUILD_DIR/fuzz-work/<name>/). Fails on any crash,
# leak, sanitizer report or timeout; the reproducer is left in $BUILD_DIR/fuzz-work/<name>/ and
# named in the output (add it as a regression test).
#   scripts/fuzz.sh [seconds per target, default 60] [target names...]
# Targets run JOBS (default: the core count) at a time.
# BUILD_DIR defaults to build-asan, the build scripts/sanitize.sh makes with clang, so CI compiles
# the project once for the ASan test run and the fuzzers.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build_dir="${BUILD_DIR:-build-asan}"
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is required (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DEDGESTREAM_FUZZ=ON >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target fuzz_targets

targets=("$@")
if ((${#targets[@]} == 0)); then
  for source in fuzz/fuzz_*.cpp; do
    name="$(basename "$source" .cpp)"
    targets+=("${name#fuzz_}")
  done
fi
# One target per core at a time (libFuzzer runs one process per target here): each writes its
# verdict to $work/result, printed below in target order.
fuzz_one() {
  local name="$1" work="$build_dir/fuzz-work/$1" rc runs corpus
  rm -rf "$work"
  mkdir -p "$work/corpus"
  if [ -d "fuzz/corpus/$name" ]; then
    cp -R "fuzz/corpus/$name/." "$work/corpus/"
  else
    echo "fuzz.sh: warning: no seed corpus fuzz/corpus/$name/; starting from an empty corpus"
  fi
  echo "== fuzz_$name for $seconds s"
  set +e
  ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$build_dir/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1
  rc=$?
  set -e
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' | tail -1 || true)"
  corpus="$(find "$work/corpus" -type f | wc -l)"
  if ((rc != 0)); then
    echo "fuzz_$name: FAILED (exit $rc) after ${runs:-?} executions" >"$work/result"
  else
    echo "fuzz_$name: ok, ${runs:-?} executions in $seconds s, corpus $corpus inputs" >"$work/result"
  fi
}

parallel="${JOBS:-$(nproc)}"
running=0
for name in "${targets[@]}"; do
  fuzz_one "$name" &
  running=$((running + 1))
  if ((running >= parallel)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=0
for name in "${targets[@]}"; do
  work="$build_dir/fuzz-work/$name"
  if ! grep -q ': ok,' "$work/result" 2>/dev/null; then
    failed=1
    echo "fuzz_$name FAILED; last lines of $work/log:"
    tail -40 "$work/log" 2>/dev/null || true
    ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null || true
  fi
done
echo "== fuzzing summary"
for name in "${targets[@]}"; do
  cat "$build_dir/fuzz-work/$name/result" 2>/dev/null || echo "fuzz_$name: FAILED (no result)"
done
exit "$failed"
