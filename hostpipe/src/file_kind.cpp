// File kinds in words (see file_kind.h).
#include "placebench/hostpipe/file_kind.h"

#include <sys/stat.h>

namespace placebench::hostpipe {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a plain file";
}

}  // namespace placebench::hostpipe
