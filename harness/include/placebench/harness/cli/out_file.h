// `--out FILE` of the commands that print one JSON object (verify, feasible): checked before anything is
// measured, then written whole or not at all (atomic_file.h). An existing file is refused, not replaced:
// nothing already recorded is overwritten.
#pragma once
#include <string>

namespace placebench::harness {

// InputError ("--out PATH: ...; FIX") when PATH exists (file or directory) or its folder is not a
// writable directory. Call it before the work whose result goes there.
void check_out_file(const std::string& path);

// Writes `text` to PATH atomically; a failure is a WriteError naming --out. Refuses PATH when it appeared
// since check_out_file (another process wrote it).
void write_out_file(const std::string& path, const std::string& text);

}  // namespace placebench::harness
