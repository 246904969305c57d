"""Unit tests of benchmarks/sweep and benchmarks/plot_sweep (CTest entry `sweep`): the 99% Student-t
interval against tabulated t values, aggregation with the device bound, resume after an
interruption, failure recording, presets, and a plot smoke test. A fake benchmark_driver (a small
Python script) stands in for the engine so that these run in seconds."""

import argparse
import csv
import importlib.machinery
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_sweep():
    loader = importlib.machinery.SourceFileLoader("sweep", os.path.join(BENCH, "sweep"))
    spec = importlib.util.spec_from_loader("sweep", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


sweep = load_sweep()

FAKE_DRIVER = textwrap.dedent("""\
    #!/bin/sh
    # A stand-in for benchmark_driver: logs its arguments, fails for the codec named in FAKE_FAIL_CODEC,
    # sleeps for FAKE_SLEEP seconds, and writes a --stats_json whose wall time depends on the read chunk.
    echo "$*" >> "$FAKE_LOG"
    [ -n "${FAKE_CGROUP_LOG:-}" ] && grep memory /proc/self/cgroup >> "$FAKE_CGROUP_LOG"
    while [ $# -gt 0 ]; do
      case "$1" in
        --edges_codec) codec=$2 ;;
        --read_chunk) chunk=$2 ;;
        --stats_json) stats=$2 ;;
        --timeline) timeline=$2 ;;
      esac
      shift
    done
    if [ "$codec" = "${FAKE_FAIL_CODEC:-}" ]; then
      echo "benchmark_driver: codec exploded on purpose" >&2
      exit 1
    fi
    sleep "${FAKE_SLEEP:-0}"
    [ -n "${timeline:-}" ] && echo '{"traceEvents": []}' > "$timeline"
    n=$(wc -l < "$FAKE_LOG")
    case "$chunk" in 1M) wall=10.0$((n % 3)) ;; *) wall=2.5$((n % 3)) ;; esac
    cat > "$stats" <<JSON
    {"wall_seconds": $wall, "engine_seconds": 2.0, "io_wait_seconds": 1.0,
     "bytes_read": 400000000, "bytes_written": 100000000, "partitions": 4, "peak_rss_bytes": 1000,
     "compression_ratio": 1.0, "options": {"direct_io": true},
     "streams": {"input": {"bytes_read": 100000000, "bytes_written": 0},
                 "edges": {"bytes_read": 300000000, "bytes_written": 100000000}}}
    JSON
    """)


class CiMath(unittest.TestCase):
    def test_t_quantiles_match_tables(self):
        # t(0.995, df) from standard tables.
        for df, t in ((1, 63.657), (2, 9.925), (4, 4.604), (9, 3.250), (29, 2.756)):
            self.assertAlmostEqual(sweep.t_quantile_995(df), t, places=3)
        self.assertEqual(sweep.t_quantile_995(35), 2.750)  # conservative: df 30's row
        self.assertEqual(sweep.t_quantile_995(1000), 2.576)
        with self.assertRaises(ValueError):
            sweep.t_quantile_995(0)

    def test_mean_ci99(self):
        m, s, ci = sweep.mean_ci99([10.0, 12.0, 14.0])
        self.assertAlmostEqual(m, 12.0)
        self.assertAlmostEqual(s, 2.0)
        self.assertAlmostEqual(ci, 9.925 * 2.0 / math.sqrt(3), places=6)  # 11.4604
        m, s, ci = sweep.mean_ci99([1.0, 2.0, 3.0, 4.0, 5.0])
        self.assertAlmostEqual(ci, 4.604 * math.sqrt(2.5) / math.sqrt(5), places=6)  # 3.2556
        m, s, ci = sweep.mean_ci99([7.0])
        self.assertEqual((m, s), (7.0, 0.0))
        self.assertTrue(math.isnan(ci))
        self.assertTrue(math.isnan(sweep.mean_ci99([])[0]))

    def test_sizes_codecs_volumes(self):
        self.assertEqual(sweep.parse_size("4K"), 4096)
        self.assertEqual(sweep.parse_size("16M"), 16 << 20)
        self.assertEqual(sweep.parse_size("1GiB"), 1 << 30)
        self.assertEqual(sweep.parse_codec("zlib:3/none"), ("zlib:3", "none"))
        self.assertEqual(sweep.parse_codec("snappy"), ("snappy", "snappy"))
        self.assertEqual(sweep.parse_volume("hdd=/x,cgroup"), {"name": "hdd", "dir": "/x", "cgroup": True})
        with self.assertRaises(ValueError):
            sweep.parse_volume("/no/name")
        with self.assertRaises(ValueError):
            sweep.parse_volume("a=/x,bogus")


class Aggregation(unittest.TestCase):
    def record(self, rep, wall, status="ok", **cell):
        c = {"volume": "v", "graph": "g", "algorithm": "pagerank", "memory": "64M", "read_chunk": "1M",
             "write_chunk": "1M", "io_depth": "4", "edges_codec": "none", "updates_codec": "none"}
        c.update(cell)
        r = {"key": sweep.cell_key(c), "rep": rep, "cell": c, "status": status}
        if status == "ok":
            r["stats"] = {"wall_seconds": wall, "engine_seconds": wall - 1, "io_wait_seconds": 0.5,
                          "bytes_read": 200e6, "bytes_written": 100e6, "options": {"direct_io": True},
                          "streams": {"edges": {"bytes_read": 150e6, "bytes_written": 100e6}}}
        else:
            r["reason"] = "exit 1: boom"
        return r

    def test_rows_ci_bytes_and_device_bound(self):
        recs = [self.record(0, 10.0), self.record(1, 12.0), self.record(2, 14.0),
                self.record(0, 0, status="failed", read_chunk="4M"),
                self.record(0, 0, status="failed", io_depth="8"), self.record(0, 5.0, io_depth="8")]  # retried: ok wins
        probe = {("read", 1 << 20, 4): 100.0, ("write", 1 << 20, 4): 50.0, ("read", 4 << 20, 8): 400.0}
        rows = sweep.aggregate(recs, {"v": probe})
        self.assertEqual(len(rows), 3)
        r = rows[0]
        self.assertEqual((r["runs"], r["failures"]), (3, 0))
        self.assertAlmostEqual(r["wall_mean_s"], 12.0)
        self.assertAlmostEqual(r["wall_ci99_s"], 11.4604, places=3)
        self.assertEqual(r["bytes_read"], 200000000)
        self.assertEqual(r["scratch_bytes_read"], 150000000)
        # 200 MB at 100 MB/s + 100 MB at 50 MB/s = 4 s.
        self.assertAlmostEqual(r["device_bound_s"], 4.0)
        self.assertAlmostEqual(r["ratio_to_bound"], 3.0)
        self.assertEqual(r["direct_io"], 1)
        failed = rows[1]
        self.assertEqual((failed["runs"], failed["failures"]), (0, 1))
        self.assertIn("boom", failed["failure_reasons"])
        retried = rows[2]
        self.assertEqual((retried["runs"], retried["failures"]), (1, 0))

    def test_runs_keep_the_device_speed_of_their_sitting(self):
        # A run resumed from an earlier invocation keeps the bandwidths stored when it ran: each run's
        # bound from its own (200 MB / 100 + 100 MB / 50 = 4 s with the probe; 2 s at twice the speed).
        recs = [self.record(0, 10.0), self.record(1, 12.0)]
        recs[1]["device_MBps"] = {"read": 200.0, "write": 100.0}
        probe = {("read", 1 << 20, 4): 100.0, ("write", 1 << 20, 4): 50.0}
        r = sweep.aggregate(recs, {"v": probe})[0]
        self.assertAlmostEqual(r["device_bound_s"], 3.0)
        self.assertAlmostEqual(r["ratio_to_bound"], (10.0 / 4 + 12.0 / 2) / 2)
        self.assertEqual(r["probe_sittings"], 2)
        self.assertAlmostEqual(r["device_read_MBps"], 150.0)

    def test_load_average_means(self):
        recs = [self.record(0, 10.0), self.record(1, 12.0), self.record(2, 14.0)]
        for r, (before, after) in zip(recs, ((1.0, 2.0), (2.0, 3.0), (4.5, 6.0))):
            r["loadavg_before"], r["loadavg_after"] = [before, 0.0, 0.0], [after, 0.0, 0.0]
        for r, cpu in zip(recs, (3.0, 4.0, 8.0)):
            r["cpu_seconds"] = cpu
        r = sweep.aggregate(recs, {})[0]
        self.assertAlmostEqual(r["cpu_mean_s"], 5.0)
        self.assertAlmostEqual(r["load1_before_mean"], 2.5)
        self.assertAlmostEqual(r["load1_after_mean"], 11.0 / 3)
        old = sweep.aggregate([self.record(0, 10.0)], {})[0]  # records of older sweeps: no load column
        self.assertEqual(old["load1_before_mean"], "")
        self.assertEqual(old["cpu_mean_s"], "")

    def test_probe_nearest_cell(self):
        probe = {("read", 1 << 20, 4): 100.0, ("read", 16 << 20, 4): 300.0, ("write", 1 << 20, 1): 20.0}
        self.assertEqual(sweep.probe_bandwidth(probe, "read", 1 << 20, 4), 100.0)
        self.assertEqual(sweep.probe_bandwidth(probe, "read", 8 << 20, 4), 300.0)  # log2 distance 1 vs 3
        self.assertEqual(sweep.probe_bandwidth(probe, "write", 4 << 20, 8), 20.0)
        self.assertIsNone(sweep.probe_bandwidth({}, "read", 1, 1))

    def test_torn_jsonl_line_is_ignored(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.jsonl")
            with open(path, "w") as f:
                f.write(json.dumps(self.record(0, 1.0)) + "\n" + '{"key": "half')
            self.assertEqual(len(sweep.load_results(path)), 1)


class EndToEnd(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.driver = os.path.join(d, "fake_driver")
        with open(self.driver, "w") as f:
            f.write(FAKE_DRIVER)
        os.chmod(self.driver, 0o755)
        self.log = os.path.join(d, "calls.log")
        self.vol = os.path.join(d, "vol")
        os.makedirs(self.vol)
        self.out = os.path.join(d, "out")
        self.probe = os.path.join(d, "probe.csv")
        with open(self.probe, "w") as f:
            f.write("op,request_bytes,queue_depth,MBps,IOPS\nread,1048576,2,100,95\nwrite,1048576,2,50,48\n"
                    "read,4194304,2,400,95\nwrite,4194304,2,200,48\n")
        os.environ["FAKE_LOG"] = self.log
        os.environ.pop("FAKE_FAIL_CODEC", None)
        os.environ.pop("FAKE_SLEEP", None)

    def tearDown(self):
        self.dir.cleanup()

    def calls(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return sum(1 for _ in f)

    def run_sweep(self, *extra, chunks="1M,4M", codecs="none,snappy", reps="3"):
        argv = ["--out", self.out, "--driver", self.driver, "--volume", "v=" + self.vol, "--graph", "g",
                "--read-chunk", chunks, "--io-depth", "2", "--codec", codecs, "--reps", reps,
                "--probe", "v=" + self.probe] + list(extra)
        return sweep.main(argv)

    def read_csv(self):
        with open(os.path.join(self.out, "results.csv"), newline="") as f:
            return list(csv.DictReader(f))

    def test_full_run_then_resume_skips_completed(self):
        self.assertEqual(self.run_sweep(), 0)
        self.assertEqual(self.calls(), 12)  # 2 chunks x 2 codecs x 3 reps
        rows = self.read_csv()
        self.assertEqual(len(rows), 4)
        for r in rows:
            self.assertEqual(r["runs"], "3")
            self.assertTrue(r["wall_ci99_s"])
        fast = [r for r in rows if r["read_chunk"] == "4M"][0]
        # 400 MB / 400 MB/s + 100 MB / 200 MB/s = 1.5 s
        self.assertAlmostEqual(float(fast["device_bound_s"]), 1.5)
        for rec in sweep.load_results(os.path.join(self.out, "results.jsonl")):
            self.assertGreaterEqual(rec["cpu_seconds"], 0.0)  # the fake driver's CPU time
            self.assertEqual(len(rec["loadavg_before"]), 3)
            self.assertEqual(len(rec["loadavg_after"]), 3)
            # The bandwidths its bound uses, from this invocation's probe at its chunk size.
            self.assertEqual(rec["device_MBps"]["read"], 400.0 if rec["cell"]["read_chunk"] == "4M" else 100.0)
        # Simulate an interruption: keep 5 records plus a torn line, resume: only 7 runs again.
        path = os.path.join(self.out, "results.jsonl")
        with open(path) as f:
            lines = f.readlines()
        with open(path, "w") as f:
            f.writelines(lines[:5])
            f.write(lines[5][:20])
        os.remove(self.log)
        self.assertEqual(self.run_sweep(), 0)
        self.assertEqual(self.calls(), 7)
        self.assertEqual([r["runs"] for r in self.read_csv()], ["3"] * 4)
        # Nothing left to do: a third invocation runs nothing.
        os.remove(self.log)
        self.assertEqual(self.run_sweep(), 0)
        self.assertEqual(self.calls(), 0)

    def test_timeline_dir_keeps_one_trace_per_run(self):
        timelines = os.path.join(self.dir.name, "traces")
        self.assertEqual(self.run_sweep("--timeline-dir", timelines, chunks="1M", codecs="none", reps="2"), 0)
        records = sweep.load_results(os.path.join(self.out, "results.jsonl"))
        self.assertEqual(len(records), 2)
        paths = [rec["timeline"] for rec in records]
        self.assertEqual(len(set(paths)), 2)  # one file per repetition
        for rec in records:
            self.assertEqual(os.path.dirname(rec["timeline"]), timelines)
            self.assertTrue(rec["timeline"].endswith("-rep%d.json" % rec["rep"]))
            self.assertNotIn("/", os.path.basename(rec["timeline"])[:-5])
            self.assertIn("--timeline " + rec["timeline"], rec["command"])
            with open(rec["timeline"]) as f:
                self.assertEqual(json.load(f), {"traceEvents": []})
        # A cell key longer than a file name allows: cut, with a digest that keeps cells apart.
        args = argparse.Namespace(timeline_dir=timelines)
        cell = dict(records[0]["cell"])
        long_a = sweep.timeline_path(args, dict(cell, graph="/g" * 200 + "a"), 0)
        long_b = sweep.timeline_path(args, dict(cell, graph="/g" * 200 + "b"), 0)
        self.assertLessEqual(len(os.path.basename(long_a)), 200)
        self.assertNotEqual(long_a, long_b)
        # Without the option, no --timeline reaches the driver.
        os.remove(self.log)
        self.assertEqual(self.run_sweep(chunks="4M", codecs="none", reps="1"), 0)
        with open(self.log) as f:
            self.assertNotIn("--timeline", f.read())

    def test_failures_are_recorded_and_the_sweep_goes_on(self):
        os.environ["FAKE_FAIL_CODEC"] = "snappy"
        self.assertEqual(self.run_sweep(), 0)
        self.assertEqual(self.calls(), 12)
        rows = {(r["read_chunk"], r["edges_codec"]): r for r in self.read_csv()}
        self.assertEqual(rows[("1M", "snappy")]["runs"], "0")
        self.assertEqual(rows[("1M", "snappy")]["failures"], "3")
        self.assertIn("codec exploded on purpose", rows[("1M", "snappy")]["failure_reasons"])
        self.assertEqual(rows[("1M", "none")]["runs"], "3")
        # Failed runs count as done unless --retry-failed; then they run again (and succeed).
        os.environ.pop("FAKE_FAIL_CODEC")
        os.remove(self.log)
        self.assertEqual(self.run_sweep(), 0)
        self.assertEqual(self.calls(), 0)
        self.assertEqual(self.run_sweep("--retry-failed"), 0)
        self.assertEqual(self.calls(), 6)
        rows = {(r["read_chunk"], r["edges_codec"]): r for r in self.read_csv()}
        self.assertEqual((rows[("1M", "snappy")]["runs"], rows[("1M", "snappy")]["failures"]), ("3", "0"))

    def test_timeout_is_a_recorded_failure(self):
        os.environ["FAKE_SLEEP"] = "5"
        self.assertEqual(self.run_sweep("--timeout", "0.5", reps="1", codecs="none", chunks="1M"), 0)
        self.assertEqual(self.calls(), 1)
        rows = self.read_csv()
        self.assertEqual(rows[0]["failures"], "1")
        self.assertIn("timeout", rows[0]["failure_reasons"])

    def test_matrix_file_and_preset(self):
        matrix = os.path.join(self.dir.name, "m.json")
        with open(matrix, "w") as f:
            json.dump({"volumes": ["v=" + self.vol], "graphs": ["g"], "read_chunk": "1M,4M", "io_depth": [2],
                       "codecs": ["none"], "reps": 2}, f)
        preset = os.path.join(self.dir.name, "v.cfg")
        self.assertEqual(sweep.main(["--out", self.out, "--driver", self.driver, "--matrix", matrix,
                                     "--make-preset", "v=" + preset]), 0)
        self.assertEqual(self.calls(), 4)
        with open(preset) as f:
            text = f.read()
        self.assertIn("read_chunk = 4M", text)  # the fake driver is fastest with 4M
        self.assertIn("io_depth = 2", text)
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w") as f:
            json.dump({"volumez": []}, f)
        self.assertEqual(sweep.main(["--out", self.out, "--driver", self.driver, "--matrix", bad]), 2)

    def test_bad_volume_or_driver_is_a_usage_error(self):
        self.assertEqual(sweep.main(["--out", self.out, "--driver", self.driver, "--volume", "v=/nonexistent/x",
                                     "--graph", "g"]), 2)
        self.assertEqual(sweep.main(["--out", self.out, "--driver", "/nonexistent/driver", "--volume",
                                     "v=" + self.vol, "--graph", "g"]), 2)

    def test_block_mem_wraps_each_run(self):
        block = os.path.join(self.dir.name, "fake_block_mem")
        marks = os.path.join(self.dir.name, "block.log")
        with open(block, "w") as f:
            f.write("#!/bin/sh\n"
                    "echo \"start $*\" >> %s\n"
                    "trap 'echo released >> %s; exit 0' TERM\n"
                    "echo 'block_mem: holding; kill -TERM releases it'\n"
                    "while :; do sleep 0.05; done\n" % (marks, marks))
        os.chmod(block, 0o755)
        self.assertEqual(self.run_sweep("--block-mem", "3G", "--block-mem-binary", block, reps="1", codecs="none",
                                        chunks="1M"), 0)
        with open(marks) as f:
            self.assertEqual(f.read().split("\n")[:2], ["start --leave 3G", "released"])
        self.assertEqual(self.read_csv()[0]["runs"], "1")
        # A missing block_mem is a recorded failure, not a crash.
        self.assertEqual(self.run_sweep("--block-mem", "3G", "--block-mem-binary", "/nonexistent/block_mem", reps="1",
                                        codecs="snappy", chunks="1M"), 0)
        row = [r for r in self.read_csv() if r["edges_codec"] == "snappy"][0]
        self.assertEqual(row["failures"], "1")
        self.assertIn("block_mem not found", row["failure_reasons"])

    @unittest.skipUnless(os.geteuid() == 0 and os.path.exists("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                         "SKIP: --mem-cap needs root and the cgroup-v1 memory controller")
    def test_mem_cap_runs_the_driver_in_a_memory_group(self):
        os.environ["FAKE_CGROUP_LOG"] = os.path.join(self.dir.name, "cgroup.log")
        try:
            self.assertEqual(self.run_sweep("--mem-cap", "768M", reps="1", codecs="none", chunks="1M"), 0)
        finally:
            del os.environ["FAKE_CGROUP_LOG"]
        with open(os.path.join(self.dir.name, "cgroup.log")) as f:
            self.assertIn("/edgestream-sweep", f.read())
        with open("/sys/fs/cgroup/memory/edgestream-sweep/memory.limit_in_bytes") as f:
            self.assertEqual(int(f.read()), 768 << 20)

    def test_plot_smoke(self):
        self.assertEqual(self.run_sweep(), 0)
        with open(os.path.join(self.out, "probe-v.csv"), "w") as f:
            with open(self.probe) as src:
                f.write(src.read())
        proc = subprocess.run([sys.executable, os.path.join(BENCH, "plot_sweep"), self.out], capture_output=True, text=True)
        if proc.returncode == 3 and "matplotlib is not installed" in proc.stderr:
            self.skipTest("SKIP: matplotlib not installed (apt-get install python3-matplotlib)")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for name in ("device_bandwidth", "runtime_vs_chunk", "runtime_per_codec", "time_vs_bound"):
            for ext in ("png", "svg"):
                path = os.path.join(self.out, "plots", "%s.%s" % (name, ext))
                self.assertTrue(os.path.getsize(path) > 1000, path)


if __name__ == "__main__":
    unittest.main()
