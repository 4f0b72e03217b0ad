// Input files: regular files only (a FIFO, a directory, /dev/zero refused at once, never blocking),
// at most their limit; YAML documents bounded in their alias-expanded size, with plain keys and UTF-8 text.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/yaml_check.h"
#include "placebench/hostpipe/input_file.h"
#include "yaml_fixtures.h"

using namespace placebench::harness;

namespace {

std::string temp_path(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/pb-input-file";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name;
  std::filesystem::remove_all(path);
  return path;
}

std::string read_error(const std::string& path, std::uint64_t max_bytes = kMaxConfigBytes) {
  try {
    read_input_file(path, "give a YAML file", max_bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string yaml_error(const std::string& text) {
  try {
    detail::load_yaml_document(text, "doc.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(InputFile, ReadsARegularFile) {
  std::string path = temp_path("ok.yaml");
  std::ofstream(path) << "a: 1\n";
  EXPECT_EQ(read_input_file(path, "give a YAML file", kMaxConfigBytes), "a: 1\n");
}

TEST(InputFile, RefusesWhatIsNotARegularFileWithoutBlocking) {
  std::string fifo = temp_path("fifo.yaml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string e = read_error(fifo);  // with no writer: an open without O_NONBLOCK would wait forever
  EXPECT_NE(e.find(fifo + ": not a regular file (a FIFO); give a YAML file"), std::string::npos) << e;
  e = read_error("/dev/zero");
  EXPECT_NE(e.find("/dev/zero: not a regular file (a character device)"), std::string::npos) << e;
  std::string dir = temp_path("dir.yaml");
  std::filesystem::create_directories(dir);
  e = read_error(dir);
  EXPECT_NE(e.find("not a regular file (a directory)"), std::string::npos) << e;
  std::string socket_path = temp_path("s.sock");
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof addr.sun_path);
  std::copy(socket_path.begin(), socket_path.end(), addr.sun_path);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  e = read_error(socket_path);
  EXPECT_NE(e.find("not a regular file (a socket)"), std::string::npos) << e;
  ::close(s);
  e = read_error(temp_path("absent.yaml"));
  EXPECT_NE(e.find("cannot open it (No such file or directory); give a YAML file"), std::string::npos) << e;
}

TEST(InputFile, RefusesAFileOverItsLimit) {
  std::string path = temp_path("big.yaml");
  std::ofstream(path) << std::string(1025, '#');
  std::string e = read_error(path, 1024);
  EXPECT_NE(e.find("larger than the 1024 bytes placebench reads from such a file (1025 bytes)"), std::string::npos) << e;
  EXPECT_EQ(read_input_file(path, "x", 1025).size(), 1025u);
}

TEST(InputFile, Utf8) {
  EXPECT_FALSE(placebench::hostpipe::invalid_utf8_at("plain, caf\xC3\xA9, \xF0\x9F\x98\x80"));
  EXPECT_EQ(placebench::hostpipe::invalid_utf8_at("ab\xFF"), 2u);
  EXPECT_EQ(placebench::hostpipe::invalid_utf8_at("\xC0\xAF"), 0u);      // overlong
  EXPECT_EQ(placebench::hostpipe::invalid_utf8_at("\xED\xA0\x80"), 0u);  // a surrogate
  EXPECT_EQ(placebench::hostpipe::invalid_utf8_at("x\xE2\x82"), 1u);     // cut short
}

TEST(YamlDocument, AnAliasBombIsRefusedWithoutWalkingIt) {
  // 10^9 values expanded: walking them all would take minutes and the JSON copy all memory.
  std::string e = yaml_error(placebench::testing::alias_bomb("", 8));
  EXPECT_NE(e.find("doc.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("expands to more than 100000 values (aliases included)"), std::string::npos) << e;
  EXPECT_EQ(yaml_error(placebench::testing::alias_bomb("", 3)), "");  // 10^4: aliases are fine in a document of ordinary size
}

TEST(YamlDocument, ASelfReferencingAliasIsRefusedAsAnExpansion) {
  // `&b [*b, ...]` expands without end; the walk once kept a path per pending node (quadratic memory:
  // libFuzzer's 2 GB limit in a CI run, tests/fuzz/regressions/decision/oom-yaml-self-referencing-alias.yaml).
  std::string e = yaml_error("a: &a [x, x, x]\nb: &b [*a, *b, *b, *b, *b, *b]\n");
  EXPECT_NE(e.find("expands to more than 100000 values (aliases included)"), std::string::npos) << e;
  e = yaml_error("outer:\n  list: [1, {inner: caf\xE9}]\n");  // paths are still spelled in full
  EXPECT_NE(e.find("doc.yaml:2: outer.list[1].inner: the value holds bytes that are not UTF-8"), std::string::npos) << e;
}

TEST(YamlDocument, KeysArePlainNamesAndTextIsUtf8) {
  std::string e = yaml_error("decision:\n  ? [a, b]\n  : 1\n");
  EXPECT_NE(e.find("doc.yaml:2: decision: a key must be a plain name, not a list or mapping"), std::string::npos) << e;
  e = yaml_error("classes:\n  - name: caf\xE9\n");
  EXPECT_NE(e.find("doc.yaml:2: classes[0].name: the value holds bytes that are not UTF-8"), std::string::npos) << e;
  e = yaml_error("a:\n  n\xFF: 1\n");
  EXPECT_NE(e.find("doc.yaml:2: a: a key holds bytes that are not UTF-8"), std::string::npos) << e;
  e = yaml_error("a: [1, 2\n");
  EXPECT_NE(e.find("doc.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
}
