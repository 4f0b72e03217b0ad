// What a file that is not a regular one is, in words, for a message ("a FIFO", "a character device").
#pragma once
#include <sys/types.h>

namespace placebench::hostpipe {

// From a stat(2) mode: "a directory", "a FIFO", "a character device", "a block device", "a socket",
// "a symbolic link" (lstat), else "not a plain file".
const char* file_kind(mode_t mode);

}  // namespace placebench::hostpipe
