// Golden outputs of the check printers: console table, JUnit XML (one test case per check) and Markdown.
#include <gtest/gtest.h>

#include "placebench/harness/check/printers.h"

using namespace placebench::harness::check;

namespace {

CheckReport report() {
  CheckReport r{"runs/a", "ref.yaml", {}};
  r.checks.push_back({"run complete", "run", "", true, "complete: true", "complete", "", "ref.yaml"});
  r.checks.push_back({"c/local median", "reference", "c", true, "1 us (-10%, +10%): [0.9, 1.1] us", "1 us", "", "ref.yaml:3"});
  r.checks.push_back({"c/remote <5% | \"slower\"", "expectation", "c", false, "step time at most +5.00%",
                      "step time +10.00%", "c/remote is +10.00% slower & more", "ref.yaml:6"});
  return r;
}

}  // namespace

TEST(CheckPrinters, JUnitHasOneTestCasePerCheck) {
  EXPECT_EQ(render_junit_xml(report(), JunitStamp{"node7", "2026-12-01T14:05:00", 1.25}),
            R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="placebench check" tests="3" failures="1" errors="0" time="1.250">
  <testsuite name="placebench check runs/a" tests="3" failures="1" errors="0" skipped="0" hostname="node7" timestamp="2026-12-01T14:05:00" time="1.250">
    <properties>
      <property name="run_dir" value="runs/a"/>
      <property name="reference" value="ref.yaml"/>
    </properties>
    <testcase classname="placebench.run" name="run complete">
      <system-out>expected: complete: true
actual: complete
reference: ref.yaml</system-out>
    </testcase>
    <testcase classname="placebench.c" name="c/local median">
      <system-out>expected: 1 us (-10%, +10%): [0.9, 1.1] us
actual: 1 us
reference: ref.yaml:3</system-out>
    </testcase>
    <testcase classname="placebench.c" name="c/remote &lt;5% | &quot;slower&quot;">
      <failure message="c/remote is +10.00% slower &amp; more" type="expectation">expected: step time at most +5.00%
actual: step time +10.00%
reference: ref.yaml:6</failure>
    </testcase>
  </testsuite>
</testsuites>
)");
}

TEST(CheckPrinters, Markdown) {
  EXPECT_EQ(render_markdown(report()),
            R"(### placebench check: FAIL (1 of 3 checks failed)

Run runs/a against ref.yaml.

| result | check | expected | actual |
| --- | --- | --- | --- |
| pass | run complete | complete: true | complete |
| pass | c/local median | 1 us (-10%, +10%): [0.9, 1.1] us | 1 us |
| **FAIL** | c/remote &lt;5% \| "slower" | step time at most +5.00% | step time +10.00% |

Failures:

- c/remote &lt;5% \| "slower" (ref.yaml:6): c/remote is +10.00% slower &amp; more
)");
  CheckReport ok = report();
  ok.checks.pop_back();
  EXPECT_EQ(render_markdown(ok).substr(0, 43), "### placebench check: PASS (2 of 2 checks)\n");
}

TEST(CheckPrinters, ConsoleTable) {
  std::string t = render_check_table(report());
  EXPECT_NE(t.find("Check runs/a against ref.yaml\n"), std::string::npos);
  EXPECT_NE(t.find("  pass   c/local median"), std::string::npos);
  EXPECT_NE(t.find("  FAIL   c/remote <5%"), std::string::npos);
  EXPECT_NE(t.find("         ref.yaml:6: c/remote is +10.00% slower & more\n"), std::string::npos);
  EXPECT_NE(t.find("FAIL: 1 of 3 checks failed\n"), std::string::npos);
}

// A row wider than 100 columns gives its expected value a line of its own; --wide keeps it on the row.
TEST(CheckPrinters, ConsoleTableFits100Columns) {
  CheckReport r = report();
  r.checks.back().expected = std::string(90, 'e');
  const std::string t = render_check_table(r);
  EXPECT_NE(t.find("\n         expected: " + std::string(90, 'e') + "\n"), std::string::npos) << t;
  std::size_t start = 0;
  for (std::size_t end; (end = t.find('\n', start)) != std::string::npos; start = end + 1)
    if (t.compare(start, 9, "         ") != 0) {
      EXPECT_LE(end - start, 100u) << t.substr(start, end - start);
    }
  const std::string wide = render_check_table(r, true);
  EXPECT_EQ(wide.find("expected: "), std::string::npos);
  EXPECT_NE(wide.find(std::string(90, 'e') + "\n"), std::string::npos);
}

TEST(CheckPrinters, XmlEscapeDropsControlCharacters) {
  EXPECT_EQ(xml_escape(std::string("a\x01<b>\t'&\"\n")), "a&lt;b&gt;\t&apos;&amp;&quot;\n");
}
