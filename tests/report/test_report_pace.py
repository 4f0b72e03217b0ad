"""The per-rank lane chart (scripts/placebench_report/fig_pace.py): a collective file whose row carries
`pace` and a gang file with `pace.steps` each get a lane chart naming the pace-setter; files without
pace records get none. Run: .venv/bin/python tests/report/test_report_pace.py"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import FIX, ROOT  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import fig_pace  # noqa: E402
from placebench_report.load import Doc  # noqa: E402

REPORT = os.path.join(ROOT, "scripts", "report.py")


def lanes(late_rank, calls=6, ranks=4):
    """[call][rank] = [start, arrive, depart]: late_rank arrives 50 us after the others."""
    out = []
    for c in range(calls):
        t = c * 100.0
        out.append([[t, t + (50 if r == late_rank else 1), t + 60] for r in range(ranks)])
    return out


def trial(setter, calls=6):
    return {"setter": setter, "blocks": calls, "unknown_blocks": 0, "ranks": [],
            "per_block": [{"setter": setter, "last": setter, "lateness_us": 49, "clock_bound_us": 2}] * calls}


def with_pace(tmp):
    with open(os.path.join(FIX, "collective-mpi.json"), encoding="utf-8") as f:
        doc = json.load(f)
    doc["rows"][0]["pace"] = {"blocks": trial("unknown"), "calls": trial(2),
                              "lanes": {"blocks": lanes(2), "calls": lanes(2)}}
    path = os.path.join(tmp, "collective-pace.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    with open(os.path.join(FIX, "gang-late.json"), encoding="utf-8") as f:
        gang = json.load(f)
    gang["pace"] = {"steps": trial(1), "lanes": lanes(1)}
    gpath = os.path.join(tmp, "gang-pace.json")
    with open(gpath, "w", encoding="utf-8") as f:
        json.dump(gang, f)
    return path, gpath


class PaceLanes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-pace-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_the_report_draws_a_lane_chart_per_file_with_pace(self):
        coll, gang = with_pace(self.tmp)
        out = os.path.join(self.tmp, "report.html")
        r = subprocess.run([sys.executable, REPORT, coll, gang, "-o", out], capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            html = f.read()
        alts = re.findall(r'<img[^>]*alt="(Per-rank lanes of [^"]*)"', html)
        self.assertEqual(len(alts), 2, alts)
        self.assertTrue(any(a.endswith("pace-setter 2") for a in alts), alts)
        self.assertTrue(any(a.startswith("Per-rank lanes of gang") and a.endswith("pace-setter 1") for a in alts), alts)

    def test_files_without_pace_records_get_no_lane_chart(self):
        for name, kind in (("collective-mpi.json", "collective"), ("gang-late.json", "gang")):
            with open(os.path.join(FIX, name), encoding="utf-8") as f:
                doc = Doc(os.path.join(FIX, name), kind, json.load(f))
            self.assertEqual(fig_pace.pace_figures([doc]), [], name)

    def test_an_unknown_pace_setter_is_said_so(self):
        img = fig_pace.pace_figure("x", {"calls": trial("unknown"), "lanes": {"calls": lanes(0)}})
        self.assertIn("pace-setter unknown", img)


if __name__ == "__main__":
    unittest.main()
