#!/usr/bin/env bash
# Builds and runs the test suite under sanitizers (the CI's sanitizer steps; developers run the same):
#   scripts/sanitize.sh [address|thread|all]     (default: all)
# address: the WHOLE suite (every CTest entry) under AddressSanitizer + UndefinedBehaviorSanitizer in
#          $ASAN_BUILD_DIR (default build-asan). With clang installed the build is the libFuzzer one
#          (-DEDGESTREAM_FUZZ=ON: ASan+UBSan plus coverage hooks), so scripts/fuzz.sh reuses it
#          instead of compiling the project a third time; without clang it is a GCC ASan+UBSan build.
# thread:  the threaded tests (tags in $TSAN_TAGS) under ThreadSanitizer in $TSAN_BUILD_DIR
#          (default build-tsan), with the suppressions in scripts/tsan.supp (each one justified there).
# Any sanitizer report fails the run (halt_on_error / exitcode), and so does any failing test.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"  # the build directories may lie elsewhere (ASAN_BUILD_DIR, TSAN_BUILD_DIR)
what="${1:-all}"
jobs="${JOBS:-$(nproc)}"
# Tests at a time: two per core, as scripts/test.sh (most tests wait on direct I/O part of the time).
test_jobs="${TEST_JOBS:-$((2 * jobs))}"
# Tags whose tests run several threads in one process (engine workers, routing, parallel frame
# decoding, concurrent runs, fault injection under load, the on-disk grid's build). The others are
# single-threaded or only spawn subprocesses, which the ASan run covers.
TSAN_TAGS="${TSAN_TAGS:-engine edge_cache codecs faults alg_basic grid_codec keyed_streams keyed_split grid_build timeline}"

# Sanitizer builds: -O1 with line tables only (all the sanitizers' reports need; full debug info and
# -O2 cost CI minutes for nothing) and WITHOUT -DNDEBUG, so assert() checks run here too. clang when
# installed (CI installs it: it is also the libFuzzer compiler), else the default compiler.
configure() {  # build_dir, then cmake arguments
  local dir="$1"
  shift
  local compiler=() flags="-O1 -g1"
  if command -v clang++ >/dev/null; then
    compiler=(-DCMAKE_CXX_COMPILER=clang++)
    flags="-O1 -gline-tables-only"
  fi
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compiler[@]}" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" "$@" >/dev/null
}

run_address() {
  local dir="${ASAN_BUILD_DIR:-build-asan}"
  if command -v clang++ >/dev/null; then
    configure "$dir" -DEDGESTREAM_FUZZ=ON -DEDGESTREAM_TEST_TAGS_ONLY=
  else
    echo "sanitize.sh: clang++ not found; GCC ASan+UBSan build (scripts/fuzz.sh will need clang)"
    configure "$dir" -DEDGESTREAM_SANITIZE=address -DEDGESTREAM_TEST_TAGS_ONLY=
  fi
  cmake --build "$dir" -j "$jobs" --target edgestream_tests
  # ASAN_TAGS (default: every CTest entry) narrows the run; what is left out is printed, never silent.
  local filter=()
  if [ -n "${ASAN_TAGS:-}" ]; then
    filter=(-R "^($(echo $ASAN_TAGS | tr ' ' '|'))\$")
    echo "== ASan+UBSan: tags $ASAN_TAGS ($dir); NOT run under ASan: $(cd "$dir" && ctest -N | \
      sed -n 's/.*Test *#[0-9]*: //p' | grep -vxE "$(echo $ASAN_TAGS | tr ' ' '|')" | tr '\n' ' ')"
  else
    echo "== ASan+UBSan: the whole suite ($dir)"
  fi
  (cd "$dir" &&
    ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --output-on-failure -j "$test_jobs" --timeout 1800 "${filter[@]}")
}

run_thread() {
  local dir="${TSAN_BUILD_DIR:-build-tsan}"
  # Only the test files with these tags are compiled (CMake's EDGESTREAM_TEST_TAGS_ONLY).
  configure "$dir" -DEDGESTREAM_SANITIZE=thread "-DEDGESTREAM_TEST_TAGS_ONLY=$(echo $TSAN_TAGS | tr ' ' ';')"
  cmake --build "$dir" -j "$jobs" --target edgestream_tests
  local regex
  regex="^($(echo $TSAN_TAGS | tr ' ' '|'))\$"
  echo "== TSan: tags $TSAN_TAGS ($dir)"
  (cd "$dir" &&
    TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$root/scripts/tsan.supp" \
    ctest --output-on-failure -j "$test_jobs" --timeout 1800 -R "$regex")
}

case "$what" in
  address) run_address ;;
  thread) run_thread ;;
  all) run_address && run_thread ;;
  *) echo "usage: scripts/sanitize.sh [address|thread|all]" >&2; exit 2 ;;
esac
