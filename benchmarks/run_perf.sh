#!/usr/bin/env bash
# The performance benchmark of issue 6 in one command: builds Release (scripts/build.sh), generates
# the RMAT graphs it needs if missing, measures the work directory's device with device_probe (same
# request size and depth as the engine, in the same run), runs every selected workload x algorithm
# REPS times through benchmarks/sweep (stats JSON per run, resumable), runs the single-thread COST
# baselines (cost_baseline: PageRank in vertex and Hilbert order, union-find CC) and, when given,
# X-Stream with the same command line, then prints the table of benchmarks/perf_report (also CSV):
# time min/median and mean +- 99% confidence interval, bytes read/written, device bound and ratio, COST ratio, peak RSS vs budget,
# X-Stream's time and the speed-up. docs/performance.md explains the workloads and columns.
#
# usage: benchmarks/run_perf.sh [--data DIR] [--out DIR] [--work-dir DIR] [--workloads "mem ooc"]
#                               [--algorithms "pagerank bfs"] [--reps N] [--xstream PATH] [--no-build]
#
# Environment (defaults; options win): DATA=bench-data (graphs, generated there if missing),
# OUT=perf-out (results; re-running resumes), WORK_DIR=$DATA (engine scratch, probed device),
# SCALE=22 (small graph; the big one is SCALE+2), WORKLOADS="mem ooc big-ooc big-all",
# ALGORITHMS="pagerank bfs cc sssp", REPS=3, THREADS=2, ITERS=20 (PageRank iterations),
# CHUNK=4M, DEPTH=4 (engine request size and depth = probed cell), PROBE_FILE_SIZE=1G,
# PROBE_SECONDS=2, PROBE_EACH=1 (a probe before each workload x algorithm; 0: one for the whole
# run), COST=1 (0: skip the single-thread baselines), XSTREAM= (X-Stream's benchmark_driver),
# XSTREAM_BLOCK_MEM=1 (0: X-Stream's out-of-core runs without block_mem), TIMEOUT=3600 (seconds
# per run), and the budgets MEM_BUDGET=4G, OOC_BUDGET=256M, BIG_OOC_BUDGET=1G, BIG_ALL_BUDGET=96M;
# CODEC=auto/none (the engine's defaults: --edges_codec auto --updates_codec none; as benchmarks/sweep --codec takes them:
# e.g. delta/none = --edges_codec delta --updates_codec none; they matter with K > 1 only);
# TIMELINE=1 keeps each engine run's --timeline trace in OUT/<workload>/timelines/ (~90 bytes per
# span: ~20 MB for rmat24 PageRank at 96M; docs/performance.md "Timeline").
#
# X-Stream reads through the page cache: out of core (every workload but mem) it runs while
# build/block_mem pins all memory but its budget + 768 MiB, so that the graph cannot sit in the
# page cache between its passes (EdgeStream uses direct I/O and needs no such fence).
#
# Workloads (issue 6): mem = rmat$SCALE at 4G (in memory); ooc = rmat$SCALE at 256M (edges out of
# core); big-ooc = rmat$((SCALE+2)) at 1G; big-all = rmat$((SCALE+2)) at 96M (vertex state out of
# core too: K >= 4 at scale 24). cc runs on the symmetric graph of the workload's scale
# (rmatN-sym, generated with --symmetric: both directions of every edge).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benchmarks/bench_graphs.sh
source benchmarks/bench_graphs.sh

data="${DATA:-bench-data}"; out="${OUT:-perf-out}"; work="${WORK_DIR:-}"
workloads="${WORKLOADS:-mem ooc big-ooc big-all}"; algorithms="${ALGORITHMS:-pagerank bfs cc sssp}"
reps="${REPS:-3}"; xstream="${XSTREAM:-}"; build=1
while (($#)); do
  case "$1" in
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --work-dir) work=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    --algorithms) algorithms=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --xstream) xstream=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run_perf: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
work="${work:-$data}"
scale="${SCALE:-22}"; big=$((scale + 2)); threads="${THREADS:-2}"; iters="${ITERS:-20}"
chunk="${CHUNK:-4M}"; depth="${DEPTH:-4}"
if [ -n "$xstream" ] && [ ! -x "$xstream" ]; then
  echo "run_perf: X-Stream binary $xstream is not executable" >&2; exit 2
fi

if [ "$build" = 1 ]; then
  echo "run_perf: building Release (scripts/build.sh) ..." >&2
  BUILD_DIR=build scripts/build.sh >/dev/null
fi
for tool in benchmark_driver rmat device_probe cost_baseline block_mem; do
  [ -x "build/$tool" ] || { echo "run_perf: build/$tool missing (build first or drop --no-build)" >&2; exit 1; }
done
mkdir -p "$data" "$work" "$out"
data=$(cd "$data" && pwd); work=$(cd "$work" && pwd)

# workload -> "scale budget"
workload_spec() {
  case "$1" in
    mem) echo "$scale ${MEM_BUDGET:-4G}" ;;
    ooc) echo "$scale ${OOC_BUDGET:-256M}" ;;
    big-ooc) echo "$big ${BIG_OOC_BUDGET:-1G}" ;;
    big-all) echo "$big ${BIG_ALL_BUDGET:-96M}" ;;
    *) echo "run_perf: unknown workload $1 (mem, ooc, big-ooc, big-all)" >&2; return 2 ;;
  esac
}
graph_for() { bench_graph run_perf "$data" "$1" "$2" "$threads"; }  # scale algorithm -> graph path
driver_args_for() {  # algorithm -> extra driver arguments
  if [ "$1" = pagerank ]; then echo "--pagerank::niters $iters"; fi
}

for w in $workloads; do workload_spec "$w" >/dev/null; done
for a in $algorithms; do
  case "$a" in pagerank|bfs|cc|sssp) ;; *) echo "run_perf: unknown algorithm $a (pagerank, bfs, cc, sssp)" >&2; exit 2 ;; esac
done

# 1. The device bound, measured in this run at the engine's request size and depth: once before
# each workload x algorithm (PROBE_EACH=1, the default: a shared cloud disk's bandwidth drifts by
# tens of percent within minutes, so each sweep's runs are held against a probe taken just before
# them; every run keeps its sitting's figures), or once for the whole run (PROBE_EACH=0).
# OUT/probe.csv is the latest probe (perf_report's figures for a run that kept none).
probe_device() {  # probe CSV path
  echo "run_perf: probing $work (device_probe, ${chunk} x ${depth}) ..." >&2
  build/device_probe "$work" --sizes "$chunk" --depths "$depth" --file_size "${PROBE_FILE_SIZE:-1G}" \
    --seconds "${PROBE_SECONDS:-2}" >"$1.tmp" 2>"$out/probe.log"
  mv "$1.tmp" "$1"
  [ "$1" = "$out/probe.csv" ] || cp "$1" "$out/probe.csv"
  grep -E '^(read|write),' "$1" | awk -F, '{printf "run_perf: device %s %s MB/s\n", $1, $4}' >&2
}
if [ "${PROBE_EACH:-1}" != 1 ]; then probe_device "$out/probe.csv"; fi

# 2. The engine: one sweep per workload x algorithm (graph, budget and driver arguments differ).
for w in $workloads; do
  read -r s budget < <(workload_spec "$w")
  for a in $algorithms; do
    g=$(graph_for "$s" "$a")
    probe="$out/probe.csv"
    if [ "${PROBE_EACH:-1}" = 1 ]; then
      probe="$out/probe-$w-$a.csv"
      probe_device "$probe"
    fi
    timeline=()
    if [ "${TIMELINE:-0}" = 1 ]; then timeline=(--timeline-dir "$out/$w/timelines"); fi
    benchmarks/sweep --out "$out/$w" --volume "work=$work" --graph "$g" --algorithm "$a" --memory "$budget" \
      --read-chunk "$chunk" --io-depth "$depth" --codec "${CODEC:-auto/none}" --reps "$reps" --threads "$threads" \
      --timeout "${TIMEOUT:-3600}" --driver-args "$(driver_args_for "$a")" --probe "work=$probe" "${timeline[@]}"
  done
done

# 3. Single-thread COST baselines (PageRank: vertex and Hilbert order; CC: union-find), per graph.
json_field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
if [ "${COST:-1}" = 1 ]; then
  for w in $workloads; do
    read -r s _ < <(workload_spec "$w")
    for a in $algorithms; do
      [ "$a" = pagerank ] || [ "$a" = cc ] || continue
      g=$(graph_for "$s" "$a")
      for order in vertex hilbert; do
        for ((r = 0; r < reps; r++)); do
          if grep -qF "\"graph\": \"$g\", \"algorithm\": \"$a\", \"order\": \"$order\", \"rep\": $r," "$out/cost.jsonl" 2>/dev/null; then
            continue  # done in an earlier (interrupted) run
          fi
          echo "run_perf: cost_baseline $a $order on $(basename "$g") (rep $((r + 1))/$reps) ..." >&2
          if line=$(build/cost_baseline -g "$g" --algorithm "$a" --order "$order" --iterations "$iters" | grep '^COST '); then
            printf '{"graph": "%s", "algorithm": "%s", "order": "%s", "rep": %d, "load_seconds": %s, "compute_seconds": %s, "total_seconds": %s}\n' \
              "$g" "$a" "$order" "$r" "$(json_field "$line" load_seconds)" "$(json_field "$line" compute_seconds)" \
              "$(json_field "$line" total_seconds)" >>"$out/cost.jsonl"
          else
            echo "run_perf: cost_baseline $a $order on $g failed" >&2
          fi
        done
      done
    done
  done
fi

# 4. X-Stream with the same settings (its own defaults for chunk sizes and scratch placement).
# start_block_mem LEAVE: pins all memory but LEAVE bytes in the background; prints block_mem's pid
# once the memory is pinned (fails when block_mem exits first, e.g. without RLIMIT_MEMLOCK).
start_block_mem() {
  local log="$out/block_mem.log"
  sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true  # the graph leaves the page cache
  build/block_mem --leave "$1" --force >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if grep -q '^block_mem: holding' "$log"; then echo "$pid"; return 0; fi
    sleep 0.2
  done
  echo "run_perf: block_mem --leave $1 failed: $(tail -1 "$log")" >&2
  return 1
}
if [ -n "$xstream" ]; then
  for w in $workloads; do
    read -r s budget < <(workload_spec "$w")
    for a in $algorithms; do
      g=$(graph_for "$s" "$a")
      for ((r = 0; r < reps; r++)); do
        if grep -qF "\"workload\": \"$w\", \"algorithm\": \"$a\", \"rep\": $r," "$out/xstream.jsonl" 2>/dev/null; then continue; fi
        # shellcheck disable=SC2046  # driver_args_for prints words to split
        # X-Stream takes the budget in bytes, and picks its partition count only with -a (without it, 32).
        cmd=("$xstream" -g "$g" -b "$a" -p "$threads" --physical_memory "$(numfmt --from=iec "$budget")" -a $(driver_args_for "$a"))
        echo "run_perf: X-Stream $w $a (rep $((r + 1))/$reps): ${cmd[*]}" >&2
        fence=""
        if [ "$w" != mem ] && [ "${XSTREAM_BLOCK_MEM:-1}" = 1 ]; then
          leave=$(( $(numfmt --from=iec "$budget") + 768 * 1024 * 1024 ))
          if ! fence=$(start_block_mem "$leave"); then
            printf '{"workload": "%s", "algorithm": "%s", "rep": %d, "status": "failed", "reason": "block_mem --leave %s failed"}\n' \
              "$w" "$a" "$r" "$leave" >>"$out/xstream.jsonl"
            continue
          fi
        fi
        start=$(date +%s.%N)
        status=0
        # In the graph's directory: X-Stream opens the edge file there, and writes its streams there
        # (the .ini has no [disk] mount points), whatever WORK_DIR is.
        (cd "$(dirname "$g")" && timeout "${TIMEOUT:-3600}" "${cmd[@]}") >"$out/xstream-last.log" 2>&1 || status=$?
        if [ -n "$fence" ]; then  # unpinning takes seconds of CPU: the next run waits for it
          kill "$fence"
          while kill -0 "$fence" 2>/dev/null; do sleep 0.2; done
        fi
        if [ "$status" = 0 ]; then
          wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
          printf '{"workload": "%s", "algorithm": "%s", "rep": %d, "status": "ok", "wall_seconds": %s}\n' \
            "$w" "$a" "$r" "$wall" >>"$out/xstream.jsonl"
        else
          reason=$(tail -1 "$out/xstream-last.log" | tr -d '"\\' | cut -c1-200)
          printf '{"workload": "%s", "algorithm": "%s", "rep": %d, "status": "failed", "reason": "%s"}\n' \
            "$w" "$a" "$r" "$reason" >>"$out/xstream.jsonl"
        fi
      done
    done
  done
fi

# 5. The table.
echo
echo "EdgeStream performance (issue 6): SCALE=$scale (big $big), -p $threads, PageRank $iters iterations," \
     "chunk $chunk x depth $depth, $reps runs per cell, work dir $work; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
benchmarks/perf_report "$out" --workloads "$workloads"
