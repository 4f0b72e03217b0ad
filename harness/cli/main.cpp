// The placebench executable: everything is in placebench::harness (cli.cpp and cmd_*.cpp).
#include "placebench/harness/cli/cli.h"

int main(int argc, char** argv) { return placebench::harness::run_cli(argc, argv); }
