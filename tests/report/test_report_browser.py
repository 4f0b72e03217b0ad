"""The report's and the fleet page's first screen as a real browser shows it (headless Chromium, 1280x900):
the report opens with its one-sentence-per-class list (`ul.first-screen`) inside the first screen, the
fleet page with its verdict heading; and every piece of text on both pages meets WCAG 2.x AA contrast
against the background it is drawn on (4.5:1, 3:1 for large text), as computed by the browser from the
page's own styles (inline cell colours of the heat map included). A probe script is appended to a copy of
each page; it writes what it measured into the DOM, which --dump-dom returns. A screenshot of each first
screen is taken as well (kept under $PLACEBENCH_SCREENSHOTS when set). The report's inputs include a history
changes file (the History section and its first-screen sentence, issue 31) and a run with interference
conditions (its Interference section and first-screen sentence, issue 32).
Run: .venv/bin/python tests/report/test_report_browser.py"""
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
from test_report import all_inputs, chromium, read, report  # noqa: E402

HISTORY = os.path.join(FIX, "history-changes.json")  # placebench history changes --json (test_report_history.py)
INTERFERENCE = os.path.join(FIX, "interference-run")  # a run with interference conditions (issue 32)
FLEET_PAGE = os.path.join(ROOT, "tests", "golden", "cli", "fleet-one-slow.html")  # what `fleet --html` writes
WIDTH, HEIGHT = 1280, 900

# Measures, after load: where the first-screen element is, and the contrast of every element that draws
# text of its own (WCAG 2.x relative luminance; the background is the first opaque one up the tree).
PROBE = r"""
<script>
window.addEventListener('load', () => {
  const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                     return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const background = el => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                              if (c.length >= 3 && (c.length < 4 || c[3] > 0.99)) return c; } return [255, 255, 255]; };
  const worst = [];
  let checked = 0;
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const st = getComputedStyle(el);
    if (!own || st.visibility === 'hidden' || st.display === 'none') continue;
    const fg = rgb(st.color), bg = background(el);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(st.fontSize), bold = parseInt(st.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3.0 : 4.5;
    checked++;
    if (ratio < need) worst.push({text: el.textContent.trim().slice(0, 60), ratio: Math.round(ratio * 100) / 100, need,
                                  color: st.color, background: 'rgb(' + bg.slice(0, 3).join(', ') + ')'});
  }
  const first = document.querySelector(FIRST);
  const r = first ? first.getBoundingClientRect() : null;
  document.body.setAttribute('data-probe', JSON.stringify({checked, worst,
    first: r ? {top: r.top, bottom: r.bottom, height: r.height, text: first.textContent.trim().slice(0, 300)} : null}));
});
</script>
"""


def probe(browser, page, first_selector, tmp, name):
    """What the probe measured on a copy of `page` ({checked, worst, first}), and a screenshot's path."""
    html = read(page).replace("</body>", PROBE.replace("FIRST", json.dumps(first_selector)) + "</body>")
    copy = os.path.join(tmp, name + ".html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(html)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}"]
    r = subprocess.run([browser, *flags, "--dump-dom", "file://" + copy], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"{name}: chromium failed: {r.stderr[-2000:]}")
    found = re.search(r'data-probe="([^"]*)"', r.stdout)
    if not found:
        raise AssertionError(f"{name}: the probe did not run: {r.stdout[:300]}")
    measured = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                          .replace("&gt;", ">"))
    shots = os.environ.get("PLACEBENCH_SCREENSHOTS") or tmp
    os.makedirs(shots, exist_ok=True)
    shot = os.path.join(shots, name + ".png")
    r = subprocess.run([browser, *flags, f"--screenshot={shot}", "file://" + page], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0 or not os.path.exists(shot):
        raise AssertionError(f"{name}: no screenshot: {r.stderr[-2000:]}")
    return measured, shot


class FirstScreenInABrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.browser = chromium()
        if not cls.browser:
            raise unittest.SkipTest("chromium not installed (scripts/setup.sh installs Debian's chromium)")
        cls.tmp = tempfile.mkdtemp(prefix="pb-report-browser-")
        cls.report_page = os.path.join(cls.tmp, "report.html")
        r = report(all_inputs(cls.tmp) + [HISTORY, INTERFERENCE], cls.report_page)
        if r.returncode != 0:
            raise AssertionError(r.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_readable(self, name, measured):
        self.assertGreater(measured["checked"], 20, f"{name}: too few text elements measured")
        self.assertEqual(measured["worst"], [], f"{name}: text below WCAG AA contrast")

    def test_the_report_opens_with_its_sentences_and_every_text_is_readable(self):
        measured, shot = probe(self.browser, self.report_page, "ul.first-screen", self.tmp, "report")
        first = measured["first"]
        self.assertIsNotNone(first, "the report has no first-screen sentences (ul.first-screen)")
        self.assertGreater(first["height"], 0)
        self.assertLess(first["top"], HEIGHT, "the first-screen sentences start below the first screen")
        self.assertRegex(first["text"], r"(use strict|use prefer|use any|no policy)", first["text"])
        self.assert_readable("report", measured)
        self.assertGreater(os.path.getsize(shot), 20_000)

    def test_the_history_sentence_is_in_the_first_screen_and_its_section_readable(self):
        measured, _ = probe(self.browser, self.report_page, "#history", self.tmp, "history")
        section = measured["first"]
        self.assertIsNotNone(section, "no History section")
        self.assertIn("Change points", section["text"])
        first, _ = probe(self.browser, self.report_page, "ul.first-screen li", self.tmp, "history-first")
        self.assertLess(first["first"]["bottom"], HEIGHT, "the History sentence ends below the first screen")
        self.assertRegex(first["first"]["text"], r"^History: 3 of 4 series judged changed level, on gpu-001 and gpu-002")
        self.assert_readable("report with history", measured)

    def test_the_interference_section_is_readable_and_its_sentence_on_the_first_screen_list(self):
        first = re.search(r'<ul class="first-screen">(.*?)</ul>', read(self.report_page)).group(1)
        self.assertIn("staging-noisy under interference: does local still win", first)
        measured, _ = probe(self.browser, self.report_page, "h4.interference", self.tmp, "interference")
        self.assertIsNotNone(measured["first"], "no Interference block in the run's section")
        self.assertEqual(measured["first"]["text"], "Interference")
        self.assert_readable("report with interference", measured)

    def test_the_fleet_page_opens_with_its_verdict_and_every_cell_is_readable(self):
        measured, shot = probe(self.browser, FLEET_PAGE, "h1", self.tmp, "fleet")
        first = measured["first"]
        self.assertIsNotNone(first)
        self.assertLess(first["bottom"], HEIGHT)
        self.assertRegex(first["text"], r"\d+ nodes, \d+ suspects?")
        self.assert_readable("fleet", measured)
        self.assertGreater(os.path.getsize(shot), 5_000)

    def test_the_probe_finds_unreadable_text(self):
        # The check itself: a grey-on-white line is caught.
        page = os.path.join(self.tmp, "grey.html")
        cells = "".join(f"<p>line {i}</p>" for i in range(25))
        with open(page, "w", encoding="utf-8") as f:
            f.write(f"<!DOCTYPE html><html><body>{cells}<p style='color:#bbb'>too pale</p></body></html>")
        measured, _ = probe(self.browser, page, "p", self.tmp, "grey")
        self.assertEqual([w["text"] for w in measured["worst"]], ["too pale"])


if __name__ == "__main__":
    unittest.main()
