// Bounded input files and YAML documents (see input_file.h).
#include "placebench/hostpipe/input_file.h"

#include "placebench/hostpipe/file_kind.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace placebench::hostpipe {
namespace {

std::string not_regular(mode_t mode) { return std::string("not a regular file (") + file_kind(mode) + ")"; }

std::string limit_text(std::uint64_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// The sequence length of a UTF-8 lead byte and the range its second byte must lie in; 0 when invalid.
int utf8_length(unsigned char b, unsigned char& lo, unsigned char& hi) {
  lo = 0x80;
  hi = 0xBF;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) {
    if (b == 0xE0) lo = 0xA0;  // no overlong forms
    if (b == 0xED) hi = 0x9F;  // no surrogates
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    return 4;
  }
  return 0;
}

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

}  // namespace

FileText read_regular_file(const std::string& path, std::uint64_t max_bytes) {
  FileText out;
  auto refuse = [&](std::string problem) {
    out.problem = std::move(problem);
    out.text.clear();
    return out;
  };
  auto too_large = [&](const std::string& size) {
    return refuse("larger than the " + limit_text(max_bytes) + " placebench reads from such a file" + size);
  };
  // O_NONBLOCK: opening a FIFO without a writer returns at once (fstat then refuses it).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return refuse(not_regular(st.st_mode));  // a socket
    return refuse(std::string("cannot open it (") + std::strerror(err) + ")");
  }
  struct Closer {
    int handle;
    ~Closer() { ::close(handle); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return refuse(std::string("cannot stat it (") + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) return refuse(not_regular(st.st_mode));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return too_large(" (" + std::to_string(st.st_size) + " bytes)");
  // The size can change (or be 0, as in /proc) between fstat and read: read up to max + 1 bytes.
  std::vector<char> buf(64 * 1024);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return refuse(std::string("cannot read it (") + std::strerror(errno) + ")");
    if (n == 0) break;
    out.text.append(buf.data(), static_cast<std::size_t>(n));
    if (out.text.size() > max_bytes) return too_large("");
  }
  out.ok = true;
  return out;
}

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char lo = 0, hi = 0;
    int len = utf8_length(static_cast<unsigned char>(text[i]), lo, hi);
    if (len == 0 || i + static_cast<std::size_t>(len) > text.size()) return i;
    for (int k = 1; k < len; ++k) {
      auto c = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return i;
    }
    i += static_cast<std::size_t>(len);
  }
  return std::nullopt;
}

std::optional<YamlProblem> yaml_document_problem(const YAML::Node& root, std::size_t max_nodes) {
  // Iterative, so that neither the expanded size nor the nesting depth can exhaust the stack. Paths are
  // not kept per pending node (a self-referencing alias, `&b [*b, *b]`, made them quadratic: gigabytes):
  // each visited node records its parent and its key or index, and a path is spelled only for a problem.
  struct Step {
    std::size_t parent;
    bool keyed;         // a mapping's child (key), or a sequence's (index)
    YAML::Node key;     // the mapping's key (a handle into the document)
    std::size_t index;  // the sequence's index
  };
  constexpr std::size_t kRoot = static_cast<std::size_t>(-1);
  std::vector<Step> steps;
  std::vector<std::pair<YAML::Node, std::size_t>> todo{{root, kRoot}};  // node, its step (kRoot: the root)
  auto path_of = [&](std::size_t step) {
    std::vector<std::size_t> chain;
    for (std::size_t k = step; k != kRoot; k = steps[k].parent) chain.push_back(k);
    std::string path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Step& st = steps[*it];
      if (st.keyed) path += (path.empty() ? "" : ".") + st.key.Scalar();
      else path += "[" + std::to_string(st.index) + "]";
    }
    return path;
  };
  std::size_t visited = 0;
  auto bad_text = [&](const YAML::Node& n, std::size_t step, const char* what) -> std::optional<YamlProblem> {
    if (n.IsScalar() && invalid_utf8_at(n.Scalar()))
      return YamlProblem{line_of(n), path_of(step), std::string(what) + " holds bytes that are not UTF-8; save the file as UTF-8"};
    return std::nullopt;
  };
  while (!todo.empty()) {
    auto [node, step] = std::move(todo.back());
    todo.pop_back();
    // Every pending node will be visited too: refuse as soon as the count of both passes the limit.
    if (++visited + todo.size() > max_nodes)
      return YamlProblem{line_of(node), "",  // the path through the aliases says nothing
                         "the document expands to more than " + std::to_string(max_nodes) +
                             " values (aliases included), more than placebench reads; remove the nested aliases"};
    if (auto p = bad_text(node, step, "the value")) return p;
    if (node.IsSequence()) {
      const YAML::Node& list = node;
      for (std::size_t i = list.size(); i-- > 0;) {
        steps.push_back({step, false, YAML::Node(), i});
        todo.emplace_back(list[i], steps.size() - 1);
      }
    } else if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node key = it->first;
        if (!key.IsScalar())
          return YamlProblem{line_of(key), path_of(step), "a key must be a plain name, not a list or mapping"};
        if (auto p = bad_text(key, step, "a key")) return p;
        steps.push_back({step, true, key, 0});
        todo.emplace_back(it->second, steps.size() - 1);
      }
    }
  }
  return std::nullopt;
}

}  // namespace placebench::hostpipe
