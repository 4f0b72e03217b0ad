// Text from inputs (host names, thread names that the audited process sets, annotation values, class
// names) made safe to print: a control character would otherwise move the cursor, recolour the terminal
// or, as a line break, add a fake row to a table. One escaping for every printer and every message.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace placebench::harness {

// Every C0 control (line breaks and tabs too), DEL and C1 control (U+0080..U+009F, which some terminals
// obey as ESC [ and the like) written as an escape: \n, \r, \t, \xNN, \u0085. Other text is unchanged.
std::string escape_control(std::string_view text);

// The same for a whole table or report, keeping its own line breaks: for the text a command prints.
std::string terminal_lines(std::string_view text);

// A value for Markdown read as HTML (GitHub's step summary), outside code spans: escape_control, then
// & < > ` as HTML entities and | as \| (a table cell), so `<img src=x onerror=...>` shows as text. (Not for
// code spans, where entities show as written: text from inputs is never put in one.)
std::string markdown_text(std::string_view text);

// `text` after `first` (a row's columns, or an indent and a bullet), wrapped at spaces so that no line is
// longer than `columns` (a word longer than a line stays whole); continuation lines are indented by
// `indent` spaces. Every line ends in "\n". For the tables that fit 100 columns (fleet reasons, plan notes).
std::string wrap_words(std::string_view text, std::string_view first, std::size_t indent, std::size_t columns);

// Rows of cells as a table whose every column is as wide as its widest cell (the header row included),
// columns one space apart, lines without trailing spaces. `align` has a letter per column: 'l' (left) or
// 'r' (right); a row may have fewer cells than columns. For tables whose cells vary in width by input
// (pod and node names, arm names) that fit 100 columns for ordinary names.
std::string fit_columns(const std::vector<std::vector<std::string>>& rows, std::string_view align);

// `text` without its trailing spaces (a padded row whose last column is empty or moved to a line below).
std::string trim_right(std::string_view text);

}  // namespace placebench::harness
