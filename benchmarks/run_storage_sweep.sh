#!/usr/bin/env bash
# The small storage sweep end to end, in minutes: builds the tools, sets up the test volumes (root;
# skipped with a message otherwise), generates an RMAT graph, probes every volume with device_probe,
# runs benchmarks/sweep (PageRank, volumes x read/write chunk sizes x codecs x repetitions) and draws
# the plots. Re-running resumes: finished runs are not repeated. docs/storage_sweeps.md explains it.
#
#   benchmarks/run_storage_sweep.sh [OUT_DIR]          (default sweep-out)
#
# Environment (defaults): SCALE=18 (RMAT scale; 2^SCALE vertices, 16x edges), ITERS=5,
# VOLUMES="local throttled" (any of: local, throttled, sshfs), CHUNKS=1M,16M,
# CODECS=none,snappy,delta/snappy (edges/updates: delta edge streams are the network presets' choice),
# DEPTH=4, REPS=3, MEMORY=512M, PARTITIONS=4 (-k: forces out-of-core streams on the volume),
# THROTTLE_PROFILE=cloud (scripts/volumes.sh: hdd 150/150, cloud 60/60, issue4 100/50 MB/s).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-sweep-out}"
scale="${SCALE:-18}"
volumes="${VOLUMES:-local throttled}"

if [ ! -x build/benchmark_driver ] || [ ! -x build/device_probe ] || [ ! -x build/rmat ]; then
  [ -d build ] || BUILD_DIR=build scripts/build.sh
  cmake --build build -j "$(nproc)" --target benchmark_driver device_probe rmat
fi

mkdir -p bench-data "$out"
graph="bench-data/rmat$scale"
[ -f "$graph.ini" ] || build/rmat --name "$graph" --scale "$scale" --threads 2

vol_args=()
need_volumes=0
for v in $volumes; do
  case "$v" in
    local) mkdir -p bench-data/scratch; vol_args+=(--volume "local=$PWD/bench-data/scratch") ;;
    throttled|sshfs) need_volumes=1 ;;
    *) echo "run_storage_sweep: unknown volume $v (local, throttled, sshfs)" >&2; exit 2 ;;
  esac
done
if [ "$need_volumes" = 1 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    ES_THROTTLE_PROFILE="${THROTTLE_PROFILE:-cloud}" scripts/volumes.sh setup all >"$out/volumes.env" || true
  else
    echo "SKIP: the throttled and sshfs volumes need root (scripts/volumes.sh setup)" >&2
    : >"$out/volumes.env"
  fi
  loop_dir=$(sed -n 's/^LOOP_DIR=//p' "$out/volumes.env")
  sshfs_dir=$(sed -n 's/^SSHFS_DIR=//p' "$out/volumes.env")
  for v in $volumes; do
    if [ "$v" = throttled ]; then
      if [ -n "$loop_dir" ]; then vol_args+=(--volume "throttled=$loop_dir,cgroup")
      else echo "SKIP: no throttled volume (see scripts/volumes.sh messages above)" >&2; fi
    fi
    if [ "$v" = sshfs ]; then
      if [ -n "$sshfs_dir" ]; then vol_args+=(--volume "sshfs=$sshfs_dir")
      else echo "SKIP: no sshfs volume (see scripts/volumes.sh messages above)" >&2; fi
    fi
  done
fi
[ ${#vol_args[@]} -gt 0 ] || { echo "run_storage_sweep: no volume to sweep" >&2; exit 1; }

benchmarks/sweep --out "$out" "${vol_args[@]}" --graph "$PWD/$graph" --algorithm pagerank \
  --read-chunk "${CHUNKS:-1M,16M}" --io-depth "${DEPTH:-4}" --codec "${CODECS:-none,snappy,delta/snappy}" \
  --memory "${MEMORY:-512M}" --reps "${REPS:-3}" \
  --driver-args "--pagerank::niters ${ITERS:-5} -k ${PARTITIONS:-4} --no_edge_cache" \
  --probe-volumes --probe-file-size 256M --probe-seconds 1 --plot
echo "results: $out/results.csv, plots: $out/plots/"
