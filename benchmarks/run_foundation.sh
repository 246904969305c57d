#!/usr/bin/env bash
# The algorithm benchmark (one command): builds Release, generates RMAT scale 22 (or --scale N)
# once, measures the data directory's device with fio (direct I/O, sequential, same chunk size and
# depth as the engine), then runs each algorithm (PageRank: 20 iterations) with plenty of memory
# and under a 256 MiB budget, REPEAT times each, and prints a table: min/median wall time,
# supersteps, bytes moved, device bound (bytes read / read bandwidth + bytes written / write
# bandwidth), ratio to the bound, partitions, peak RSS. A failed run prints FAILED and the script
# goes on with the next cell.
#
# usage: benchmarks/run_foundation.sh [--scale 22] [--data DIR] [--repeat 3] [--threads 2]
#                                     [--budgets "4G 256M"] [--algorithms "pagerank bfs cc sssp" | all]
set -euo pipefail
cd "$(dirname "$0")/.."

scale=22; data=bench-data; repeat=3; threads=2; budgets="4G 256M"; algorithms="pagerank bfs cc sssp"
while (($#)); do
  case "$1" in
    --scale) scale=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --budgets) budgets=$2; shift 2 ;;
    --algorithms) algorithms=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

if [ "$algorithms" = all ]; then
  # Every algorithm of the contract except range_check (a format check) and reverse (a conversion).
  algorithms="pagerank pagerank_ddf bfs bfs_forest sssp sssp_forest cc scc mis mcst spmv conductance degree_cnt
              triangle_counting hyperanf belief_propagation bc checkbip als"
fi

./scripts/install_deps.sh
./scripts/build.sh >/dev/null
bin=build
mkdir -p "$data"
graph="$data/rmat$scale"
if [ ! -f "$graph.ini" ]; then
  echo "generating RMAT scale $scale into $graph ..."
  "$bin/rmat" --name "$graph" --scale "$scale" --threads "$threads" >/dev/null
fi

chunk=4M; depth=4
echo "measuring $data with fio (direct, sequential, bs=$chunk, iodepth=$depth, io_uring) ..."
fio_file="$data/fio.tmp"
fio_common=(--name=probe --filename="$fio_file" --size=2G --bs=$chunk --iodepth=$depth --ioengine=io_uring
            --direct=1 --minimal --runtime=10 --time_based=0)
write_kib=$(fio "${fio_common[@]}" --rw=write | awk -F';' '{print $48}')
read_kib=$(fio "${fio_common[@]}" --rw=read | awk -F';' '{print $7}')
rm -f "$fio_file"
read_bps=$((read_kib * 1024)); write_bps=$((write_kib * 1024))
echo "device: read $((read_bps / 1000000)) MB/s, write $((write_bps / 1000000)) MB/s"

stat() { grep -m1 "^$1 " <<<"$2" | awk '{print $2}'; }
printf '\n%-18s %-7s %3s %9s %9s %6s %9s %9s %9s %7s %8s\n' algorithm budget K min_s median_s steps read_GB write_GB bound_s ratio peak_MiB
for algo in $algorithms; do
  extra=()
  [ "$algo" = pagerank ] && extra=(--pagerank::niters 20)
  for budget in $budgets; do
    times=(); out=""; failed=""
    for ((r = 0; r < repeat; r++)); do
      if ! out=$("$bin/benchmark_driver" -g "$graph" -b "$algo" -p "$threads" --physical_memory "$budget" \
                   --read_chunk $chunk --write_chunk $chunk --io_depth $depth --work_dir "$data" "${extra[@]}" 2>&1); then
        failed=$(tail -1 <<<"$out"); break
      fi
      times+=("$(stat CORE::TIME::WALL "$out")")
    done
    if [ -n "$failed" ]; then
      printf '%-18s %-7s FAILED: %s\n' "$algo" "$budget" "$failed"
      continue
    fi
    sorted=$(printf '%s\n' "${times[@]}" | sort -g)
    min=$(head -1 <<<"$sorted")
    median=$(sed -n "$(((repeat + 1) / 2))p" <<<"$sorted")
    rd=$(stat CORE::UTILS::BYTES_READ "$out"); wr=$(stat CORE::UTILS::BYTES_WRITTEN "$out")
    k=$(stat CORE::PARTITIONS "$out"); rss=$(stat CORE::UTILS::PEAK_RSS "$out"); steps=$(stat CORE::PHASES "$out")
    awk -v a="$algo" -v b="$budget" -v k="$k" -v mn="$min" -v md="$median" -v rd="$rd" -v wr="$wr" -v st="${steps:-0}" \
        -v rb="$read_bps" -v wb="$write_bps" -v rss="$rss" 'BEGIN {
          bound = rd / rb + wr / wb
          printf "%-18s %-7s %3d %9.2f %9.2f %6d %9.2f %9.2f %9.2f %7.2f %8.0f\n", a, b, k, mn, md, st, rd / 1e9, wr / 1e9, bound,
                 (bound > 0 ? md / bound : 0), rss / 1048576 }'
  done
done
echo
echo "bound = bytes read / fio read bandwidth + bytes written / fio write bandwidth; ratio = median / bound"
echo "threads=$threads repeat=$repeat chunk=$chunk depth=$depth graph=$graph ($(grep -E '^(vertices|edges)=' "$graph.ini" | tr '\n' ' '))"
