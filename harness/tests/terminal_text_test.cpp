// The one escaping of text from inputs for terminals and Markdown (terminal_text.h).
#include "placebench/harness/terminal_text.h"

#include <gtest/gtest.h>

using namespace placebench::harness;

TEST(TerminalText, ControlCharactersAreEscapedAndOtherTextKept) {
  EXPECT_EQ(escape_control("node-07 GPU ü"), "node-07 GPU ü");
  EXPECT_EQ(escape_control("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(escape_control("\x1b[2J\x1b]0;owned\x07"), "\\x1b[2J\\x1b]0;owned\\x07");
  EXPECT_EQ(escape_control(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(escape_control("\x7f"), "\\x7f");
  EXPECT_EQ(escape_control("\xc2\x9b" "31m"), "\\u009b31m");  // C1 CSI, which some terminals obey
  EXPECT_EQ(escape_control("\xc2\xa0"), "\xc2\xa0");          // U+00A0 is text
}

TEST(TerminalText, ATableKeepsItsOwnLineBreaks) {
  EXPECT_EQ(terminal_lines("host  verdict\nnode\x1b[31m  pass\n"), "host  verdict\nnode\\x1b[31m  pass\n");
}

TEST(TerminalText, MarkdownShowsHtmlAsText) {
  EXPECT_EQ(markdown_text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(markdown_text("a|b `c` \"d\" 'e' &f"), "a\\|b &#96;c&#96; \"d\" 'e' &amp;f");
  EXPECT_EQ(markdown_text("two\nlines"), "two\\nlines");
}

TEST(TerminalText, WordsWrapUnderTheirColumn) {
  EXPECT_EQ(wrap_words("short note", "row  ", 5, 20), "row  short note\n");
  EXPECT_EQ(wrap_words("one two three four", "row  ", 5, 15), "row  one two\n     three four\n");
  // A word longer than a line stays whole, on a line of its own.
  EXPECT_EQ(wrap_words("a averyveryverylongword b", "- ", 2, 10), "- a\n  averyveryverylongword\n  b\n");
  EXPECT_EQ(wrap_words("", "row", 3, 10), "row\n");
}

TEST(TerminalText, TrimRightDropsTrailingSpacesOnly) {
  EXPECT_EQ(trim_right("  a b   "), "  a b");
  EXPECT_EQ(trim_right("    "), "");
  EXPECT_EQ(trim_right(""), "");
  EXPECT_EQ(trim_right("a\t "), "a\t");
}

TEST(TerminalText, FitColumnsPadsEachColumnToItsWidestCell) {
  EXPECT_EQ(fit_columns({{"arm", "GB/s"}, {"remote", "3.5"}, {"l", "12.25"}}, "lr"),
            "arm     GB/s\nremote   3.5\nl      12.25\n");
  // A left-aligned last column leaves no trailing spaces; a short row is padded with empty cells.
  EXPECT_EQ(fit_columns({{"a", "bb"}, {"ccc"}}, "ll"), "a   bb\nccc\n");
  EXPECT_EQ(fit_columns({}, "l"), "");
}
