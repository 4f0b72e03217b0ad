"""The report's badge colours meet WCAG AA (4.5:1) for their text, computed from the page's own CSS
(issue 30 part 5; before: white on #1b9e77 was 3.4:1, on #d95f02 3.8:1, on #888 3.5:1).
Run: .venv/bin/python tests/report/test_report_contrast.py"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import ROOT  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import contrast, page  # noqa: E402


class BadgeContrast(unittest.TestCase):
    def test_ratio_of_known_pairs(self):
        self.assertAlmostEqual(contrast.ratio("#000", "#fff"), 21.0, places=3)
        self.assertAlmostEqual(contrast.ratio("#777", "#777"), 1.0, places=6)

    def test_every_solid_badge_background_meets_aa_with_white_text(self):
        backgrounds = re.findall(r"\.badge[.\w,]*\{[^}]*?background:(#[0-9a-fA-F]{3,6})\}", page.CSS)
        self.assertGreaterEqual(len(backgrounds), 5, backgrounds)
        for bg in backgrounds:
            self.assertGreaterEqual(contrast.ratio("#fff", bg), contrast.AA_NORMAL_TEXT, bg)


if __name__ == "__main__":
    unittest.main()
