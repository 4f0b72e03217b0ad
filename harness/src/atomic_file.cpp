// Durable writes (see atomic_file.h): write-all with EINTR retried, fsync, rename, and clean-up on failure.
#include "placebench/harness/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>  // renameat2, RENAME_NOREPLACE
#include <cstring>
#include <filesystem>

namespace placebench::harness {
namespace {

namespace fs = std::filesystem;

const char* kDefaultFix = "free space on that file system, check its permissions, or write elsewhere";

[[noreturn]] void fail(const std::string& path, const std::string& why, const std::string& fix, const char* kept) {
  throw WriteError(path + ": cannot write it (" + why + "); " + kept + (fix.empty() ? kDefaultFix : fix.c_str()));
}

// write(2) until done; false (errno set) on failure. A file over RLIMIT_FSIZE raises SIGXFSZ, which would
// kill the process before it can clean up: it is ignored so that write returns EFBIG instead.
bool write_all(int fd, const std::string& data) {
  std::signal(SIGXFSZ, SIG_IGN);
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

// The directory's entry made durable too (after a rename or a create); best effort: some file systems
// cannot fsync a directory.
void fsync_directory(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// PATH.tmp, created afresh: O_EXCL | O_NOFOLLOW, so a symlink or a FIFO planted there is never followed
// or written through. A regular file left there by a killed writer is removed first.
int open_temporary(const std::string& tmp) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
    struct stat st {};
    if (::lstat(tmp.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::unlink(tmp.c_str()) != 0) {
      errno = EEXIST;
      return -1;
    }
  }
  return -1;
}

// rename(2) that fails with EEXIST when `to` exists (renameat2 RENAME_NOREPLACE; where the file system
// lacks it, link(2) + unlink(2), which fail the same way).
int rename_no_replace(const char* from, const char* to) {
  if (::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (::link(from, to) != 0) return -1;
  ::unlink(from);
  return 0;
}

void write_atomically(const std::string& path, const std::string& data, const std::string& fix, bool replace) {
  const std::string tmp = path + ".tmp";
  const char* kept = "any previous file is unchanged; ";
  int fd = open_temporary(tmp);
  if (fd < 0) fail(path, std::string(std::strerror(errno)) + (errno == EEXIST ? " (" + tmp + " is in the way)" : ""), fix, kept);
  bool ok = write_all(fd, data) && ::fsync(fd) == 0;
  int saved = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && (replace ? ::rename(tmp.c_str(), path.c_str()) : rename_no_replace(tmp.c_str(), path.c_str())) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    fail(path, std::strerror(saved), fix, kept);
  }
  fsync_directory(path);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& data, const std::string& fix) {
  write_atomically(path, data, fix, true);
}

void write_new_file_atomically(const std::string& path, const std::string& data, const std::string& fix) {
  write_atomically(path, data, fix, false);
}

void append_durably(const std::string& path, const std::string& data, const std::string& fix) {
  const char* kept = "what it held is unchanged; ";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, std::strerror(errno), fix, kept);
  struct stat st {};
  const off_t before = ::fstat(fd, &st) == 0 ? st.st_size : -1;
  if (write_all(fd, data) && ::fsync(fd) == 0) {
    if (::close(fd) != 0) fail(path, std::strerror(errno), fix, kept);
    if (before == 0) fsync_directory(path);
    return;
  }
  int saved = errno;
  if (before >= 0 && ::ftruncate(fd, before) == 0) (void)::fsync(fd);
  ::close(fd);
  fail(path, std::strerror(saved), fix, kept);
}

}  // namespace placebench::harness
