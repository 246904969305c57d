#!/usr/bin/env bash
# The test command of the README and of CI: installs dependencies, builds, and runs the whole
# Catch2 suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
./scripts/build.sh
cd "${BUILD_DIR:-build}"
# Two tests per core: most tests wait on direct I/O (fsync, small requests) for much of their time.
ctest --output-on-failure -j "$(( 2 * $(nproc) ))" --timeout 900
