#!/usr/bin/env bash
# The README's first command: installs the dependencies, builds Release, generates a small RMAT
# graph (scale 20: 1M vertices, 16M edges, 192 MB) under ./quickstart-data, and runs PageRank on it
# with 2 threads under a 24 MiB memory budget — small enough that the autotuner splits the vertices
# into several streaming partitions — printing the statistics and the top ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
./scripts/build.sh
data=quickstart-data
mkdir -p "$data"
[ -f "$data/rmat20.ini" ] || ./build/rmat --name "$data/rmat20" --scale 20 --threads 2
./build/benchmark_driver -g "$data/rmat20" -b pagerank --pagerank::niters 10 -p 2 \
  --physical_memory 24M --work_dir "$data" --output "$data/rmat20.pagerank.txt" --verify
echo "per-vertex ranks: $data/rmat20.pagerank.txt"
