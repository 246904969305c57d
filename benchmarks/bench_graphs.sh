# Sourced by the benchmark scripts that share a data directory (run_perf.sh, run_scaling.sh): the
# RMAT graphs named and generated one way, so that a graph one script generated is the graph the
# other expects: rmatN = scale N with 16 * 2^N edges; rmatN-sym (cc) = the same with both
# directions of every edge (build/rmat --symmetric, symmetric=1 in its .ini).
#
# bench_graph WHO DATA SCALE ALGORITHM THREADS: prints the graph's path (without .ini), generating it
# with build/rmat (THREADS threads) when DATA holds no such graph yet; WHO names the caller in the
# progress line on stderr.
bench_graph() {
  local who=$1 data=$2 s=$3 algo=$4 threads=$5 g sym=()
  g="$data/rmat$s"
  if [ "$algo" = cc ]; then g="$data/rmat$s-sym"; sym=(--symmetric); fi
  if [ ! -f "$g.ini" ]; then
    echo "$who: generating $g (RMAT scale $s, $((16 << s)) edges${sym:+, symmetric}) ..." >&2
    build/rmat --name "$g" --scale "$s" --edges $((16 << s)) --threads "$threads" "${sym[@]}" >/dev/null
  fi
  echo "$g"
}
