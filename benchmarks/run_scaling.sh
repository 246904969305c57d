#!/usr/bin/env bash
# Issue 6's linearity check ("time per edge per iteration roughly constant from scale 20 to 24 in
# each regime") in one command: builds Release (scripts/build.sh) unless --no-build, generates the
# RMAT graphs it needs if missing, runs each regime x scale x algorithm REPS times with
# benchmark_driver --heartbeat and prints, per cell, the median run's wall and setup, the summed
# superstep time, and both per edge per superstep (supersteps only, and the whole run), with K,
# bytes moved and peak RSS against the budget. Also written as CSV to OUT/scaling.csv.
#
# usage: benchmarks/run_scaling.sh [--data DIR] [--out DIR] [--scales "20 22 24"]
#                                  [--regimes "mem ooc"] [--algorithms "pagerank bfs"] [--reps N]
#                                  [--no-build]
#
# Regimes, budgets scaled with the graph (x4 per 2 scales, issue 6's scale-22 budgets in the middle):
#   mem = in memory: 4G at scale 22 (1G at 20, 16G at 24);
#   ooc = edges out of core, vertices in memory: 256M at scale 22 (64M at 20, 1G at 24).
# Everything out of core (issue 6's workload 3) is not in the table: its cost per edge depends on
# the partition count and the write requests the budget leaves (core/memory_plan.hpp,
# kEfficientWriteChunk), which a scaled budget does not keep equal (the process's fixed ~11 MiB
# does not scale). Environment (options win): DATA=bench-data, OUT=scaling-out, THREADS=2,
# ITERS=10 (PageRank iterations), REPS=1, WORK_DIR=$DATA (engine scratch).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benchmarks/bench_graphs.sh
source benchmarks/bench_graphs.sh

data="${DATA:-bench-data}"; out="${OUT:-scaling-out}"; work="${WORK_DIR:-}"
scales="20 22 24"; regimes="mem ooc"; algorithms="pagerank bfs"; reps="${REPS:-1}"; build=1
while (($#)); do
  case "$1" in
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --scales) scales=$2; shift 2 ;;
    --regimes) regimes=$2; shift 2 ;;
    --algorithms) algorithms=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run_scaling: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
threads="${THREADS:-2}"; iters="${ITERS:-10}"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "run_scaling: --reps must be a positive integer, got $reps" >&2; exit 2; }
for s in $scales; do
  # Below scale 20 the scaled budgets (16M and less out of core) fall under the process's fixed ~15 MiB.
  [[ "$s" =~ ^[0-9]+$ ]] && ((s % 2 == 0 && s >= 20 && s <= 30)) ||
    { echo "run_scaling: scales must be even numbers from 20 to 30, got $s" >&2; exit 2; }
done
for r in $regimes; do
  case "$r" in mem|ooc) ;; *) echo "run_scaling: unknown regime $r (mem, ooc)" >&2; exit 2 ;; esac
done
for a in $algorithms; do
  case "$a" in pagerank|bfs|cc|sssp) ;; *) echo "run_scaling: unknown algorithm $a (pagerank, bfs, cc, sssp)" >&2; exit 2 ;; esac
done

if [ "$build" = 1 ]; then
  echo "run_scaling: building Release (scripts/build.sh) ..." >&2
  BUILD_DIR=build scripts/build.sh >/dev/null
fi
for tool in benchmark_driver rmat; do
  [ -x "build/$tool" ] || { echo "run_scaling: build/$tool missing (build first or drop --no-build)" >&2; exit 1; }
done
mkdir -p "$data" "$out"
data=$(cd "$data" && pwd); work="${work:-$data}"; mkdir -p "$work"; work=$(cd "$work" && pwd)

budget_for() {  # regime scale -> budget in MiB: the scale-22 budget x 4^((scale - 22) / 2)
  local base
  case "$1" in mem) base=4096 ;; ooc) base=256 ;; esac
  local steps=$(( ($2 - 22) / 2 ))
  if ((steps >= 0)); then echo $((base << (2 * steps))); else echo $((base >> (-2 * steps))); fi
}
graph_for() { bench_graph run_scaling "$data" "$1" "$2" "$threads"; }  # scale algorithm -> graph path

csv="$out/scaling.csv"
echo "regime,scale,algorithm,budget_mib,edges,partitions,supersteps,wall_s,setup_s,superstep_s,ns_per_edge_superstep,ns_per_edge_run,read_gb,written_gb,peak_mib" >"$csv"
driver="$PWD/build/benchmark_driver"
for regime in $regimes; do
  for s in $scales; do
    budget=$(budget_for "$regime" "$s")
    for a in $algorithms; do
      g=$(graph_for "$s" "$a")
      args=(-g "$(basename "$g")" -b "$a" -p "$threads" --physical_memory "${budget}M" --heartbeat)
      [ "$a" = pagerank ] && args+=(--pagerank::niters "$iters")
      rows=()
      for ((r = 1; r <= reps; r++)); do
        log="$out/$regime-rmat$s-$a-$r.log"
        (cd "$(dirname "$g")" && "$driver" "${args[@]}" --work_dir "$work") >"$log" 2>&1 ||
          { echo "run_scaling: $a on rmat$s at ${budget}M failed (see $log)" >&2; exit 1; }
        # Supersteps that emitted or changed something (the last, empty one only ends the run).
        rows+=("$(awk -v regime="$regime" -v scale="$s" -v algo="$a" -v budget="$budget" '
          /^HEARTBEAT/ { if ($5 > 0 || $9 > 0) { steps++; step_s += $NF } }
          /^CORE::CONFIG::EDGES / { edges = $2 }
          /^CORE::CONFIG::PARTITIONS / { k = $2 }
          /^CORE::TIME::SETUP / { setup = $2 }
          /^CORE::TIME::WALL / { wall = $2 }
          /^CORE::UTILS::BYTES_READ / { rd = $2 }
          /^CORE::UTILS::BYTES_WRITTEN / { wr = $2 }
          /^CORE::UTILS::PEAK_RSS / { peak = $2 }
          END {
            if (steps == 0) steps = 1
            if (edges == 0) edges = 1
            printf "%s,%s,%s,%s,%d,%d,%d,%.3f,%.3f,%.3f,%.2f,%.2f,%.2f,%.2f,%.0f\n", regime, scale, algo, budget,
                   edges, k, steps, wall, setup, step_s, step_s * 1e9 / (edges * steps), wall * 1e9 / (edges * steps),
                   rd / 1e9, wr / 1e9, peak / 1048576
          }' "$log")")
      done
      # The median run by wall time.
      printf '%s\n' "${rows[@]}" | sort -t, -k8,8g | sed -n "$(( (reps + 1) / 2 ))p" >>"$csv"
    done
  done
done

echo "| regime | scale | algorithm | budget | K | supersteps | wall s | setup s | supersteps s | ns/edge/superstep | ns/edge (whole run) | read / written GB | peak MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
tail -n +2 "$csv" | awk -F, '{printf "| %s | %s | %s | %sM | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", $1, $2, $3, $4, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}'
echo "run_scaling: CSV in $csv" >&2
