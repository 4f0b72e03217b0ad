// The strict XML reader (see xml_tree.h). Iterative, so a deeply nested file cannot overflow the stack.
#include "xml_tree.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "placebench/harness/errors.h"

namespace placebench::harness::xml {

const Attribute* Element::find(std::string_view attr) const {
  for (const Attribute& a : attrs)
    if (a.name == attr) return &a;
  return nullptr;
}

namespace {

constexpr std::string_view kFix = "the file is not well-formed XML: export it again with `placebench topo --export FILE.xml`";

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& name, std::size_t max_depth)
      : text_(text), name_(name), max_depth_(max_depth) {
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }

  Element document() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    check_characters();
    skip_misc(true);
    if (at_end() || text_[pos_] != '<' || !is_name_start(peek(1)))
      fail(pos_, "not an hwloc topology XML (no root element where the file begins)",
           "give an hwloc XML file saved with `placebench topo --export FILE.xml` or `lstopo FILE.xml`");
    Element root = elements();
    skip_misc(false);
    if (!at_end()) fail(pos_, "content after the end of the root element </" + root.name + ">", std::string(kFix));
    return root;
  }

 private:
  [[noreturn]] void fail(std::size_t pos, const std::string& what, const std::string& fix) const {
    throw InputError(name_ + ":" + std::to_string(line_of(pos)) + ": " + what + "; " + fix);
  }
  int line_of(std::size_t pos) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    return static_cast<int>(it - line_starts_.begin()) + 1;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool starts_with(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  // XML 1.0 allows no control characters but tab, newline and carriage return (and no NUL, which
  // hwloc's C strings would cut the file at).
  void check_characters() const {
    for (std::size_t i = 0; i < text_.size(); ++i) {
      auto c = static_cast<unsigned char>(text_[i]);
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        fail(i, "control character 0x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15] +
                    " in the file (XML allows none)", std::string(kFix));
    }
  }

  void skip_until(std::string_view end, const std::string& what) {
    std::size_t start = pos_;
    std::size_t at = text_.find(end, pos_);
    if (at == std::string_view::npos) fail(start, what + " is never closed with `" + std::string(end) + "` (truncated?)", std::string(kFix));
    pos_ = at + end.size();
  }

  // Whitespace, comments, processing instructions and (before the root only) one DOCTYPE.
  void skip_misc(bool before_root) {
    while (!at_end()) {
      if (is_space(peek())) {
        ++pos_;
      } else if (starts_with("<!--")) {
        skip_until("-->", "comment");
      } else if (starts_with("<?")) {
        skip_until("?>", "processing instruction");
      } else if (before_root && starts_with("<!DOCTYPE")) {
        std::size_t start = pos_;
        int brackets = 0;
        for (; !at_end(); ++pos_) {
          char c = peek();
          if (c == '[') ++brackets;
          if (c == ']') --brackets;
          if (c == '>' && brackets <= 0) break;
        }
        if (at_end()) fail(start, "<!DOCTYPE is never closed (truncated?)", std::string(kFix));
        ++pos_;
      } else if (peek() == '<') {
        return;
      } else {
        fail(pos_, before_root ? "not an hwloc topology XML (text before the root element)"
                               : "text after the end of the root element",
             "give an hwloc XML file saved with `placebench topo --export FILE.xml` or `lstopo FILE.xml`");
      }
    }
  }

  std::string name_token(const char* what) {
    std::size_t start = pos_;
    if (!is_name_start(peek())) fail(pos_, std::string("expected ") + what + " name", std::string(kFix));
    while (!at_end() && is_name_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  void skip_spaces() {
    while (!at_end() && is_space(peek())) ++pos_;
  }

  // Decodes one entity or character reference at pos_ ('&') into out.
  void entity(std::string& out) {
    std::size_t start = pos_;
    std::size_t semi = text_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12)
      fail(start, "`&` that does not start an entity (write `&amp;`)", std::string(kFix));
    std::string_view ent = text_.substr(pos_ + 1, semi - pos_ - 1);
    pos_ = semi + 1;
    if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "amp") out += '&';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() >= 2 && ent[0] == '#') {
      bool hex = ent[1] == 'x';
      std::string_view digits = ent.substr(hex ? 2 : 1);
      std::uint32_t cp = 0;
      if (digits.empty() || digits.size() > 7) fail(start, "bad character reference &" + std::string(ent) + ";", std::string(kFix));
      for (char c : digits) {
        int d = (c >= '0' && c <= '9') ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) fail(start, "bad character reference &" + std::string(ent) + ";", std::string(kFix));
        cp = cp * (hex ? 16u : 10u) + static_cast<std::uint32_t>(d);
      }
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp < 0x20 && cp != 9 && cp != 10 && cp != 13))
        fail(start, "character reference &" + std::string(ent) + "; is not an XML character", std::string(kFix));
      append_utf8(out, cp);
    } else {
      fail(start, "unknown entity &" + std::string(ent) + "; (XML has &lt; &gt; &amp; &quot; &apos;)", std::string(kFix));
    }
  }

  Attribute attribute(const Element& e) {
    Attribute a;
    a.line = line_of(pos_);
    a.name = name_token("attribute");
    skip_spaces();
    if (peek() != '=') fail(pos_, "attribute " + a.name + " of <" + e.name + "> has no `=\"value\"`", std::string(kFix));
    ++pos_;
    skip_spaces();
    char quote = peek();
    if (quote != '"' && quote != '\'') fail(pos_, "attribute " + a.name + " of <" + e.name + "> has an unquoted value", std::string(kFix));
    std::size_t start = pos_++;
    while (true) {
      if (at_end()) fail(start, "value of attribute " + a.name + " of <" + e.name + "> is never closed (truncated?)", std::string(kFix));
      char c = peek();
      if (c == quote) break;
      if (c == '<') fail(pos_, "`<` inside the value of attribute " + a.name + " of <" + e.name + ">", std::string(kFix));
      if (c == '&') {
        entity(a.value);
      } else {
        a.value += c;
        ++pos_;
      }
    }
    ++pos_;
    if (e.find(a.name)) fail(start, "attribute " + a.name + " given twice in <" + e.name + ">", "keep one of them");
    return a;
  }

  // Reads a start tag at pos_ ('<'); returns whether it was empty (`/>`).
  bool start_tag(Element& e) {
    e.line = line_of(pos_);
    std::size_t start = pos_++;
    e.name = name_token("element");
    while (true) {
      bool spaced = !at_end() && is_space(peek());
      skip_spaces();
      if (at_end()) fail(start, "<" + e.name + "> is never closed (truncated?)", std::string(kFix));
      if (starts_with("/>")) {
        pos_ += 2;
        return true;
      }
      if (peek() == '>') {
        ++pos_;
        return false;
      }
      if (!spaced) fail(pos_, "attributes of <" + e.name + "> must be separated by spaces", std::string(kFix));
      e.attrs.push_back(attribute(e));
    }
  }

  Element elements() {
    std::vector<Element> open;
    while (true) {
      if (at_end()) {
        const Element& e = open.back();
        fail(text_.size(), "the file ends before <" + e.name + "> opened at line " + std::to_string(e.line) +
                               " is closed (truncated?)", std::string(kFix));
      }
      if (starts_with("<!--")) {
        skip_until("-->", "comment");
      } else if (starts_with("<![CDATA[")) {
        std::size_t start = pos_ + 9;
        skip_until("]]>", "CDATA section");
        open.back().text += text_.substr(start, pos_ - 3 - start);
      } else if (starts_with("<?")) {
        skip_until("?>", "processing instruction");
      } else if (starts_with("</")) {
        std::size_t start = pos_;
        pos_ += 2;
        std::string closing = name_token("element");
        skip_spaces();
        if (peek() != '>') fail(start, "end tag </" + closing + " is not closed with `>`", std::string(kFix));
        ++pos_;
        if (open.empty() || open.back().name != closing)
          fail(start, "end tag </" + closing + "> does not match " +
                          (open.empty() ? std::string("any open element")
                                        : "<" + open.back().name + "> opened at line " + std::to_string(open.back().line)),
               std::string(kFix));
        Element done = std::move(open.back());
        open.pop_back();
        if (open.empty()) return done;
        open.back().children.push_back(std::move(done));
      } else if (peek() == '<') {
        if (!is_name_start(peek(1))) fail(pos_, "`<` that starts no element (write `&lt;`)", std::string(kFix));
        if (open.size() >= max_depth_)
          fail(pos_, "elements nested deeper than " + std::to_string(max_depth_) + " levels",
               "no real topology is that deep: the file is damaged; export it again");
        Element e;
        bool empty = start_tag(e);
        if (!empty) {
          open.push_back(std::move(e));
        } else if (open.empty()) {
          return e;
        } else {
          open.back().children.push_back(std::move(e));
        }
      } else if (peek() == '&') {
        entity(open.back().text);
      } else {
        open.back().text += peek();
        ++pos_;
      }
    }
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t max_depth_;
  std::size_t pos_ = 0;
  std::vector<std::size_t> line_starts_;
};

}  // namespace

Element parse_document(std::string_view text, const std::string& name, std::size_t max_depth) {
  return Parser(text, name, max_depth).document();
}

}  // namespace placebench::harness::xml
