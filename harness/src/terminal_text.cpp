// Escaping for terminals and Markdown (see terminal_text.h).
#include "placebench/harness/terminal_text.h"

#include <algorithm>

#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

const char* const kHex = "0123456789abcdef";

bool is_c1_at(std::string_view text, std::size_t i) {  // U+0080..U+009F in UTF-8: C2 80..C2 9F
  return static_cast<unsigned char>(text[i]) == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(text[i + 1]) <= 0x9f;
}

}  // namespace

// C0 and DEL as errors.h writes them in a message (one_line_message), and C1 as \u00NN.
std::string escape_control(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_c1_at(text, i)) continue;
    const auto low = static_cast<unsigned char>(text[i + 1]);
    out += one_line_message(std::string(text.substr(start, i - start))) + "\\u00" + kHex[low >> 4] + kHex[low & 15];
    start = ++i + 1;
  }
  return out + one_line_message(std::string(text.substr(start)));
}

std::string terminal_lines(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    out += escape_control(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  std::string out;
  for (char c : escape_control(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '`': out += "&#96;"; break;
      case '|': out += "\\|"; break;
      default: out += c;
    }
  }
  return out;
}

std::string wrap_words(std::string_view text, std::string_view first, std::size_t indent, std::size_t columns) {
  std::string line(first);
  if (line.size() + text.size() <= columns) return line.append(text) + "\n";
  std::string out;
  bool fresh = true;  // no word on `line` yet
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (!fresh && line.size() + 1 + word.size() > columns) {
      out += line + "\n";
      line.assign(indent, ' ');
      fresh = true;
    }
    if (!fresh) line += ' ';
    line += word;
    fresh = false;
  }
  return out + line + "\n";
}

std::string fit_columns(const std::vector<std::vector<std::string>>& rows, std::string_view align) {
  std::vector<std::size_t> width(align.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      line += align[i] == 'r' ? pad + row[i] + " " : row[i] + pad + " ";
    }
    out += trim_right(line) + "\n";
  }
  return out;
}

std::string trim_right(std::string_view text) {
  const std::size_t end = text.find_last_not_of(' ');
  return std::string(text.substr(0, end == std::string_view::npos ? 0 : end + 1));
}

}  // namespace placebench::harness
