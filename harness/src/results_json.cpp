// One rule for damaged results JSON and JSON Lines (see results_json.h).
#include "placebench/harness/results_json.h"

#include <fmt/format.h>

#include <algorithm>

#include "placebench/harness/errors.h"

namespace placebench::harness {

using nlohmann::json;

JsonSyntaxProblem json_syntax_problem(const std::string& text, const json::exception& e) {
  JsonSyntaxProblem p;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    p.why = "the file is empty";
    return p;
  }
  std::string what = e.what();
  const auto* parse = dynamic_cast<const json::parse_error*>(&e);
  if (!parse) {
    // Not a syntax error: a number the parser cannot hold ("number overflow parsing '1e400'"), which
    // names no position: the line is that of the number's first appearance.
    auto q = what.find('\'');
    std::string number = q != std::string::npos ? what.substr(q + 1, what.rfind('\'') - q - 1) : "";
    std::size_t at = number.empty() ? std::string::npos : text.find(number);
    if (at != std::string::npos)
      p.line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    p.why = number.empty() ? "a value out of range" : "number " + number + " is out of range of a double";
    return p;
  }
  std::size_t end = std::min<std::size_t>(parse->byte > 0 ? parse->byte - 1 : 0, text.size());
  p.line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
  // nlohmann: "[json.exception.parse_error.101] parse error at line L, column C: syntax error while
  // parsing X - WHY; expected Y": keep WHY (and what was expected), without the internal prefix.
  auto dash = what.find(" - ");
  p.why = dash != std::string::npos ? what.substr(dash + 3) : what.substr(what.rfind(": ") + 2);
  std::replace(p.why.begin(), p.why.end(), ';', ',');
  // An error at the very end (after the last non-blank character) is a file cut short, whatever was being
  // parsed there.
  std::size_t last = text.find_last_not_of(" \t\r\n");
  if (parse->byte > last + 1 || p.why.find("end of input") != std::string::npos) p.why = "cut short: " + p.why;
  return p;
}

json parse_results_json(const std::string& text, const std::string& path, const std::string& fix) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    JsonSyntaxProblem p = json_syntax_problem(text, e);
    throw InputError(fmt::format("{}:{}: not valid JSON ({}); {}", path, p.line, p.why, fix));
  }
}

JsonLines parse_json_lines(const std::string& text, const std::string& path, const std::string& what,
                           const std::function<void(std::size_t, json)>& on_line) {
  JsonLines out;
  std::size_t pos = 0;
  for (std::size_t n = 1; pos < text.size(); ++n) {
    const std::size_t nl = text.find('\n', pos);
    auto j = json::parse(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos), nullptr, false);
    const bool last = nl == std::string::npos || nl + 1 >= text.size();
    // Only a line that does not parse is a write cut short: a whole line that lacks its newline (a crash
    // between the line and its newline) is kept.
    if (j.is_discarded()) {
      if (!last)
        throw InputError(fmt::format("{}:{}: not {} (only the last line may be cut short); remove that line by hand to "
                                     "read the rest", path, n, what));
      out.cut_line = n;
      break;
    }
    on_line(n, std::move(j));
    out.unterminated = nl == std::string::npos;
    pos = out.unterminated ? text.size() : nl + 1;
    out.good_end = pos;
  }
  return out;
}

}  // namespace placebench::harness
