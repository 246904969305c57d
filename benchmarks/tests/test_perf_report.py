"""Unit tests of benchmarks/perf_report (CTest entry `sweep`): min/median and mean with its 99%
confidence interval over runs with a failure and a retried repetition, the device bound at the engine's chunk size, the best COST baseline over
orders, the budget check, X-Stream's median and the speed-up, and the CSV written by main()."""

import csv
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import tempfile
import unittest
from contextlib import redirect_stdout

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_report():
    loader = importlib.machinery.SourceFileLoader("perf_report", os.path.join(BENCH, "perf_report"))
    spec = importlib.util.spec_from_loader("perf_report", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


report = load_report()
sweep = report.sweep


def record(rep, wall, algorithm="pagerank", status="ok", memory="256M", peak=200 << 20, bytes_read=800e6):
    cell = {"volume": "work", "graph": "/d/rmat22", "algorithm": algorithm, "memory": memory, "read_chunk": "4M",
            "write_chunk": "4M", "io_depth": "4", "edges_codec": "none", "updates_codec": "none"}
    r = {"key": sweep.cell_key(cell), "rep": rep, "cell": cell, "status": status, "loadavg_before": [2.0, 0, 0]}
    if status == "ok":
        r["stats"] = {"wall_seconds": wall, "bytes_read": bytes_read, "bytes_written": 100e6, "partitions": 4,
                      "peak_rss_bytes": peak, "options": {"read_chunk": 4 << 20, "write_chunk": 4 << 20, "io_depth": 4}}
    else:
        r["reason"] = "exit 1: boom"
    return r


PROBE = {("read", 4 << 20, 4): 400.0, ("write", 4 << 20, 4): 200.0, ("read", 1 << 20, 4): 100.0}
COST = [{"graph": "/d/rmat22", "algorithm": "pagerank", "order": "vertex", "rep": 0, "total_seconds": 6.0},
        {"graph": "/d/rmat22", "algorithm": "pagerank", "order": "hilbert", "rep": 0, "total_seconds": 3.0},
        {"graph": "/d/rmat22", "algorithm": "pagerank", "order": "hilbert", "rep": 1, "total_seconds": 3.5},
        {"graph": "/d/other", "algorithm": "pagerank", "order": "hilbert", "rep": 0, "total_seconds": 0.1}]


class Rows(unittest.TestCase):
    def test_min_median_bound_cost_budget(self):
        recs = [record(0, 4.0, bytes_read=900e6), record(1, 2.0), record(2, 3.0, bytes_read=1000e6),
                record(3, 0, status="failed"), record(3, 9.0)]  # rep 3 retried: the ok record counts
        (row,) = report.rows_for_workload("ooc", recs, PROBE, COST, [])
        self.assertEqual((row["runs"], row["failures"]), (4, 0))
        self.assertEqual(row["wall_min_s"], 2.0)
        self.assertEqual(row["wall_median_s"], 3.5)
        # Walls 4, 2, 3, 9: mean 4.5, sample stdev sqrt(29 / 3), t(0.995, 3 df) = 5.841.
        self.assertAlmostEqual(row["wall_mean_s"], 4.5)
        self.assertAlmostEqual(row["wall_ci99_s"], 5.841 * math.sqrt(29 / 3) / 2)
        # bytes of the (lower) median run, the 3.0 s one: 1000 MB at 400 MB/s + 100 MB at 200 MB/s.
        self.assertEqual(row["bytes_read"], 1000000000)
        self.assertAlmostEqual(row["device_bound_s"], 3.0)
        # The fastest run (2.0 s) against its own bound: 800 MB / 400 + 100 MB / 200 = 2.5 s.
        self.assertAlmostEqual(row["ratio_to_bound"], 0.8)
        self.assertEqual(row["probe_sittings"], 1)
        self.assertEqual((row["cost_baseline_s"], row["cost_order"]), (3.0, "hilbert"))
        self.assertAlmostEqual(row["ratio_to_cost"], 2.0 / 3.0)
        self.assertEqual(row["within_budget"], "yes")
        self.assertEqual(row["partitions"], 4)
        self.assertAlmostEqual(row["load1_mean"], 2.0)
        self.assertNotIn("xstream_runs", row)

    def test_runs_keep_the_device_speed_of_their_sitting(self):
        # Runs resumed across invocations: each is measured against the bandwidths stored in its
        # record when it ran, not against this invocation's probe (PROBE: 400 / 200 MB/s).
        slow = record(0, 3.0)
        slow["device_MBps"] = {"read": 200.0, "write": 100.0}  # 800 MB / 200 + 100 MB / 100 = 5 s
        fast = record(1, 2.0)  # no stored bandwidths (an older record): PROBE's, 2.5 s
        (row,) = report.rows_for_workload("ooc", [slow, fast], PROBE, [], [])
        self.assertAlmostEqual(row["ratio_to_bound"], 0.6)  # 3.0 / 5, not 2.0 / 2.5
        self.assertEqual(row["probe_sittings"], 2)
        self.assertAlmostEqual(row["device_bound_s"], 2.5)  # the (lower) median run's: the 2.0 s one
        self.assertEqual(row["device_read_MBps"], 400.0)
        self.assertIn("0.60*", report.text_table([row]))
        (alone,) = report.rows_for_workload("ooc", [slow], None, [], [])  # no probe now: the record's own
        self.assertAlmostEqual(alone["device_bound_s"], 5.0)

    def test_over_budget_failures_and_no_baseline(self):
        recs = [record(0, 1.0, algorithm="bfs", peak=300 << 20), record(1, 0, algorithm="bfs", status="failed")]
        (row,) = report.rows_for_workload("ooc", recs, None, COST, [])
        self.assertEqual(row["within_budget"], "NO")  # 300 MiB peak against --physical_memory 256M
        self.assertEqual((row["wall_mean_s"], row["wall_ci99_s"]), (1.0, ""))  # one run: no interval
        line = report.text_table([row]).splitlines()[1]
        self.assertIn(" 1.00 ", line)  # the mean alone, no "+-"
        self.assertNotIn("+-", line)
        self.assertEqual((row["runs"], row["failures"]), (1, 1))
        self.assertIn("boom", row["failure_reasons"])
        self.assertNotIn("device_bound_s", row)  # no probe
        self.assertNotIn("cost_baseline_s", row)  # no bfs baseline

    def test_xstream_speedup(self):
        xs = [{"workload": "mem", "algorithm": "pagerank", "rep": 0, "status": "ok", "wall_seconds": 14.0},
              {"workload": "mem", "algorithm": "pagerank", "rep": 1, "status": "ok", "wall_seconds": 16.0},
              {"workload": "mem", "algorithm": "pagerank", "rep": 2, "status": "failed", "reason": "abort"},
              {"workload": "ooc", "algorithm": "pagerank", "rep": 0, "status": "ok", "wall_seconds": 99.0}]
        (row,) = report.rows_for_workload("mem", [record(0, 3.0, memory="4G"), record(1, 5.0, memory="4G")], PROBE, [], xs)
        self.assertEqual(row["xstream_runs"], 2)
        self.assertEqual(row["xstream_median_s"], 15.0)
        # 14 and 16: stdev sqrt(2), t(0.995, 1 df) = 63.657 over sqrt(2).
        self.assertAlmostEqual(row["xstream_mean_s"], 15.0)
        self.assertAlmostEqual(row["xstream_ci99_s"], 63.657)
        self.assertIn("15.00+-63.66", report.text_table([row]))
        self.assertAlmostEqual(row["speedup_vs_xstream"], 15.0 / 4.0)
        self.assertIn("X-Stream: abort", row["failure_reasons"])


class Main(unittest.TestCase):
    def test_csv_and_table_from_an_output_directory(self):
        with tempfile.TemporaryDirectory() as out:
            os.makedirs(os.path.join(out, "ooc"))
            with open(os.path.join(out, "ooc", "results.jsonl"), "w") as f:
                for r in (record(0, 2.0), record(1, 4.0), record(0, 1.0, algorithm="bfs")):
                    f.write(json.dumps(r) + "\n")
                f.write('{"key": "torn')  # an interrupted sweep's last line
            with open(os.path.join(out, "probe.csv"), "w") as f:
                f.write("op,request_bytes,queue_depth,MBps,IOPS,seconds,bytes,direct_io,device,filesystem\n")
                f.write("read,4194304,4,400,100,1,1,1,/dev/x,ext4\nwrite,4194304,4,200,50,1,1,1,/dev/x,ext4\n")
            with open(os.path.join(out, "cost.jsonl"), "w") as f:
                f.write(json.dumps(COST[1]) + "\n")
            buf = io.StringIO()
            with redirect_stdout(buf):
                rc = report.main([out, "--workloads", "ooc,missing"])
            self.assertEqual(rc, 0)
            self.assertIn("pagerank", buf.getvalue())
            with open(os.path.join(out, "perf.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([r["algorithm"] for r in rows], ["pagerank", "bfs"])
            self.assertEqual(rows[0]["wall_median_s"], "3")
            self.assertEqual(rows[0]["cost_baseline_s"], "3")
            self.assertEqual(rows[0]["device_bound_s"], "2.5")  # 800 MB / 400 + 100 MB / 200
            self.assertEqual(rows[1]["cost_baseline_s"], "")
            self.assertEqual(list(rows[0].keys()), report.COLUMNS)

    def test_no_results_is_an_error(self):
        with tempfile.TemporaryDirectory() as out:
            with redirect_stdout(io.StringIO()):
                self.assertEqual(report.main([out, "--workloads", "mem"]), 1)


if __name__ == "__main__":
    unittest.main()
