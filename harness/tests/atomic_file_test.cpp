// The one results writer: a whole file replaced atomically, a line appended durably; a write that fails
// (here: past RLIMIT_FSIZE, as a full disk fails) leaves no temporary file and the previous contents.
#include "placebench/harness/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace placebench::harness;
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fresh(const std::string& name) {
  std::string d = ::testing::TempDir() + "/pb-atomic-" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Files of this process may not grow past `bytes` while it lives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lower);
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &saved_); }

 private:
  rlimit saved_{};
};

}  // namespace

TEST(AtomicFile, ReplacesWholeFilesAndAppendsLines) {
  std::string dir = fresh("ok");
  write_file_atomically(dir + "/f.json", "one\n");
  write_file_atomically(dir + "/f.json", "two\n");
  EXPECT_EQ(read_text(dir + "/f.json"), "two\n");
  append_durably(dir + "/t.jsonl", "a\n");
  append_durably(dir + "/t.jsonl", "b\n");
  EXPECT_EQ(read_text(dir + "/t.jsonl"), "a\nb\n");
  EXPECT_FALSE(fs::exists(dir + "/f.json.tmp"));
}

TEST(AtomicFile, AFailedWriteKeepsThePreviousFileAndRemovesTheTemporaryOne) {
  std::string dir = fresh("efbig");
  write_file_atomically(dir + "/summary.json", "previous\n");
  append_durably(dir + "/trials.jsonl", "line 1\n");
  std::string big(64 * 1024, 'x');
  {
    FileSizeLimit limit(4096);
    try {
      write_file_atomically(dir + "/summary.json", big);
      FAIL() << "a write past the file size limit succeeded";
    } catch (const WriteError& e) {
      EXPECT_NE(std::string(e.what()).find("summary.json: cannot write it (File too large)"), std::string::npos) << e.what();
    }
    EXPECT_THROW(append_durably(dir + "/trials.jsonl", big), WriteError);
  }
  EXPECT_EQ(read_text(dir + "/summary.json"), "previous\n");
  EXPECT_FALSE(fs::exists(dir + "/summary.json.tmp"));
  EXPECT_EQ(read_text(dir + "/trials.jsonl"), "line 1\n");  // no part of the failed line left
}

TEST(AtomicFile, AnUnwritableDirectoryIsAWriteErrorNamingTheFile) {
  try {
    write_file_atomically("/nonexistent-dir/x.json", "x");
    FAIL();
  } catch (const WriteError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.json: cannot write it (No such file or directory)"),
              std::string::npos) << e.what();
  }
}

// A link or a FIFO planted at PATH.tmp is never followed (the old writer opened it with O_TRUNC: through a
// link it emptied the file the link named, on a FIFO it blocked); a stale regular PATH.tmp is replaced.
TEST(AtomicFile, APlantedTemporaryIsNeverWrittenThrough) {
  std::string d = fresh("planted");
  const std::string victim = d + "/victim", path = d + "/out.json";
  { std::ofstream(victim) << "kept\n"; }
  fs::create_symlink(victim, path + ".tmp");
  EXPECT_THROW(write_file_atomically(path, "new\n"), WriteError);
  EXPECT_EQ(read_text(victim), "kept\n");
  EXPECT_FALSE(fs::exists(path));
  fs::remove(path + ".tmp");
  { std::ofstream(path + ".tmp") << "stale from a killed writer"; }
  write_file_atomically(path, "new\n");
  EXPECT_EQ(read_text(path), "new\n");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

// A new file is never put over one that appeared meanwhile.
TEST(AtomicFile, ANewFileNeverReplacesOneThatAppeared) {
  std::string d = fresh("new");
  const std::string path = d + "/out.json";
  write_new_file_atomically(path, "first\n");
  EXPECT_EQ(read_text(path), "first\n");
  EXPECT_THROW(write_new_file_atomically(path, "second\n"), WriteError);
  EXPECT_EQ(read_text(path), "first\n");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}
