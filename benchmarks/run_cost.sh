#!/usr/bin/env bash
# The COST of EdgeStream (McSherry, Isard, Murray: "Scalability! But at what COST?"): runs the
# engine beside the single-threaded in-memory baselines (cost_baseline, vertex and Hilbert edge
# order) on the same RMAT graph, for PageRank (20 iterations) and connected components, and prints
# the ratio engine wall time / best single-thread time. Two ratios: against the baseline's
# load + compute (it reads the same file, like the engine) and against its compute alone (the
# graph already in RAM, McSherry's comparison). ratio < 1: the engine beats one thread.
# Also checks that the baseline's --output equals the engine's (PageRank within 1e-4 relative).
#
# Every system runs --repeat times (at least 3 for a reported number); the table shows min and median
# per system, the ratio uses the minimum (and the median as a second line).
#
# usage: benchmarks/run_cost.sh [--scale 20] [--data DIR] [--repeat 3] [--threads 2] [--memory 4G]
#                               [--build DIR] [--algorithms "pagerank cc"] [--quiet]
# Scale 22 (4.2M vertices, 67M edges; Hilbert baseline ~1.1 GB of RAM): --scale 22 --repeat 3
set -euo pipefail
cd "$(dirname "$0")/.."

scale=20; data=bench-data; repeat=3; threads=2; memory=4G; bin=build; algorithms="pagerank cc"; quiet=""
while (($#)); do
  case "$1" in
    --scale) scale=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --build) bin=$2; shift 2 ;;
    --algorithms) algorithms=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "--repeat must be a positive integer" >&2; exit 2; }
((repeat >= 3)) || echo "warning: --repeat $repeat < 3: min/median of fewer than 3 runs are not a measurement" >&2

[ -f "$bin/build.ninja" ] || BUILD_DIR="$bin" ./scripts/build.sh >/dev/null
cmake --build "$bin" --target rmat cost_baseline benchmark_driver >/dev/null
mkdir -p "$data"
graph="$data/rmat$scale"
if [ ! -f "$graph.ini" ]; then
  echo "generating RMAT scale $scale into $graph ..."
  "$bin/rmat" --name "$graph" --scale "$scale" --threads "$threads" >/dev/null
fi
tmp=$(mktemp -d "$data/cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
stat() { grep -m1 "^$1 " <<<"$2" | awk '{print $2}'; }
min_of() { printf '%s\n' "$@" | sort -g | head -1; }
# The median (the mean of the two middle values for an even count).
median_of() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
log() { [ -n "$quiet" ] || echo "$@" >&2; }

printf '\n%-9s %-38s %17s %17s %17s\n' algorithm "run ($repeat repetitions)" "load_s min/med" "compute_s min/med" "total_s min/med"
for algo in $algorithms; do
  extra=(); iters=()
  [ "$algo" = pagerank ] && extra=(--pagerank::niters 20) && iters=(--iterations 20)
  best_total=""; best_compute=""; best_total_med=""
  for order in vertex hilbert; do
    loads=(); computes=(); totals=()
    for ((r = 0; r < repeat; r++)); do
      log "  $algo cost_baseline $order, repetition $((r + 1))/$repeat"
      line=$("$bin/cost_baseline" -g "$graph" --algorithm "$algo" --order "$order" "${iters[@]}" \
               --output "$tmp/$algo-$order.out" | grep '^COST ')
      loads+=("$(field "$line" load_seconds)"); computes+=("$(field "$line" compute_seconds)")
      totals+=("$(field "$line" total_seconds)")
    done
    l=$(min_of "${loads[@]}"); c=$(min_of "${computes[@]}"); t=$(min_of "${totals[@]}")
    lm=$(median_of "${loads[@]}"); cm=$(median_of "${computes[@]}"); tm=$(median_of "${totals[@]}")
    printf '%-9s %-38s %8.2f/%-8.2f %8.2f/%-8.2f %8.2f/%-8.2f\n' "$algo" "cost_baseline $order (1 thread)" "$l" "$lm" "$c" "$cm" "$t" "$tm"
    best_total=$(min_of $t ${best_total:-$t}); best_compute=$(min_of $c ${best_compute:-$c})
    best_total_med=$(min_of $tm ${best_total_med:-$tm})
  done
  walls=()
  for ((r = 0; r < repeat; r++)); do
    log "  $algo engine, repetition $((r + 1))/$repeat"
    out=$("$bin/benchmark_driver" -g "$graph" -b "$algo" -p "$threads" --physical_memory "$memory" --work_dir "$data" \
            "${extra[@]}" --output "$tmp/$algo-engine.out" 2>&1)
    walls+=("$(stat CORE::TIME::WALL "$out")")
  done
  w=$(min_of "${walls[@]}"); wm=$(median_of "${walls[@]}")
  printf '%-9s %-38s %17s %17s %8.2f/%-8.2f (K=%s)\n' "$algo" "engine -p $threads --physical_memory $memory" - - "$w" "$wm" \
         "$(stat CORE::PARTITIONS "$out")"
  awk -v a="$algo" -v w="$w" -v t="$best_total" -v c="$best_compute" -v wm="$wm" -v tm="$best_total_med" '
    function ratio(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "n/a" }
    BEGIN {
    printf "%-9s COST ratio engine / best single thread (min): %s vs load+compute %.2f s, %s vs compute only %.4f s; (median): %s vs load+compute %.2f s\n",
           a, ratio(w, t), t, ratio(w, c), c, ratio(wm, tm), tm }'
  # The baselines must give the engine's results (both orders).
  for order in vertex hilbert; do
    awk -v a="$algo" -v o="$order" 'NR == FNR { e[$1] = $2; next }
         { d = $2 - e[$1]; if (d < 0) d = -d; m = e[$1] < 0 ? -e[$1] : e[$1]; if (m < 1) m = 1
           if ((a == "cc" && $2 != e[$1]) || d > 1e-4 * m) bad++ }
         END { if (bad) { printf "%-9s MISMATCH: %d vertices of the %s-order baseline differ from the engine\n", a, bad, o; exit 1 } }' \
        "$tmp/$algo-engine.out" "$tmp/$algo-$order.out"
  done
done
echo
echo "min/median of $repeat runs; COST ratio = engine wall (CORE::TIME::WALL) / best cost_baseline time; threads=$threads"
echo "graph=$graph ($(grep -E '^(vertices|edges)=' "$graph.ini" | tr '\n' ' '))"
