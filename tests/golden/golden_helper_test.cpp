// The comparison behind every golden test (golden.h): placeholders match what they name and nothing
// else, the rest of a line is literal, normalisation hides the checkout's path, and regenerating keeps
// placeholders that still match.
#include <gtest/gtest.h>

#include "golden.h"

using namespace placebench::golden;

TEST(GoldenHelper, LinesWithoutPlaceholdersMustBeEqual) {
  EXPECT_TRUE(line_matches("median 3.2 us", "median 3.2 us"));
  EXPECT_FALSE(line_matches("median 3.2 us", "median 3.3 us"));
  EXPECT_FALSE(line_matches("median 3.2 us", "median 3.2 us "));
  // Regex characters in a golden line are literal.
  EXPECT_TRUE(line_matches("[+1.0, +2.0]% (a|b) x.y*", "[+1.0, +2.0]% (a|b) x.y*"));
  EXPECT_FALSE(line_matches("{{NUM}} x.y", "1 xzy"));
}

TEST(GoldenHelper, NumIntAndAnyPlaceholders) {
  for (const char* n : {"3", "-3", "+0.25", "0.", ".5", "1e-06", "2.5E+3"})
    EXPECT_TRUE(line_matches("time {{NUM}} s", std::string("time ") + n + " s")) << n;
  for (const char* bad : {"", "x", "1.2.3", "e5", "1 2"})
    EXPECT_FALSE(line_matches("time {{NUM}} s", std::string("time ") + bad + " s")) << bad;
  EXPECT_TRUE(line_matches("rank {{INT}}", "rank -12"));
  EXPECT_FALSE(line_matches("rank {{INT}}", "rank 1.5"));
  EXPECT_TRUE(line_matches("git {{ANY}}", "git "));
  EXPECT_TRUE(line_matches("git {{ANY}} end", "git 1a2b-dirty (x) end"));
  EXPECT_FALSE(line_matches("git {{ANY}} end", "git 1a2b"));
}

TEST(GoldenHelper, NormaliseReplacesTheCheckoutAndTheTestsPaths) {
  std::string src = PLACEBENCH_SOURCE_DIR;
  EXPECT_EQ(normalise("Check " + src + "/tests/x against /tmp/run-7/ref.yaml", {{"/tmp/run-7", "{{TMP}}"}}),
            "Check {{SOURCE_DIR}}/tests/x against {{TMP}}/ref.yaml");
}

TEST(GoldenHelper, SplitKeepsTheFinalNewlineApart) {
  EXPECT_EQ(split_lines("a\nb\n").lines, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split_lines("a\nb\n").final_newline);
  EXPECT_FALSE(split_lines("a\nb").final_newline);
  EXPECT_EQ(split_lines("a\n\n").lines, (std::vector<std::string>{"a", ""}));
  EXPECT_TRUE(split_lines("").lines.empty());
}

TEST(GoldenHelper, UpdateKeepsPlaceholdersThatStillMatch) {
  Lines golden = split_lines("placebench {{ANY}}\nmedian {{NUM}} us\nfixed 1\n");
  Lines actual = split_lines("placebench 0.2.0\nmedian n/a\nfixed 2\nnew line\n");
  EXPECT_EQ(updated_golden(golden, actual), "placebench {{ANY}}\nmedian n/a\nfixed 2\nnew line\n");
}
