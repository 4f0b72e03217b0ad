// The readers of the kubelet's state files and the downward API's files on what fuzzing found
// (tests/fuzz/regressions/kubelet_state, downward_api) and on Go's strconv.Quote escapes: every failure is
// std::invalid_argument naming the place, and read_managers turns it into one warning naming the file.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "placebench/harness/audit/managers.h"

using namespace placebench::harness;

namespace {

// The message parse throws, "" when it accepts the text.
template <class Parse>
std::string failure(Parse parse) {
  try {
    parse();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ManagersRead, ACpuRangeToIntMaxIsRefusedNotExpanded) {
  // 0-2147483647 would be 2^31 ids (8 GiB), and the loop's ++ past INT_MAX undefined.
  std::string m = failure([] { parse_cpu_manager_state(R"({"policyName":"static","defaultCpuSet":"0-2147483647"})"); });
  EXPECT_NE(m.find("defaultCpuSet: CPU id 2147483647 is above 16383"), std::string::npos) << m;
  m = failure([] { parse_cpu_manager_state(R"({"policyName":"static","entries":{"p":{"c":"1-99999999999999999999"}}})"); });
  EXPECT_NE(m.find("entries.p.c: CPU id 99999999999999999999 is above"), std::string::npos) << m;
  EXPECT_EQ(parse_cpu_manager_state(R"({"policyName":"static","defaultCpuSet":"0-3,8190-8191"})").default_cpus.size(), 6u);
}

TEST(ManagersRead, AKeyWithANewlineKeepsTheMessageOnOneLine) {
  // The kubelet_state fuzz finding: a pod UID key holding "\n" made the message two lines (a fake warning).
  std::string m = failure([] { parse_cpu_manager_state("{\"policyName\":\"static\",\"entries\":{\"p\\nFAKE\":7}}"); });
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find("entries.p\\nFAKE: expected an object"), std::string::npos) << m;
  m = failure([] { parse_memory_manager_state("{\"policyName\":\"static\",\"entries\":{\"p\":{\"c\\nX\":3}}}"); });
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find("entries.p.c\\nX: expected a list of memory blocks"), std::string::npos) << m;
}

TEST(ManagersRead, EntriesAddingUpToMillionsOfIdsAreRefused) {
  // 400 containers of "0-16383" were 6.5 M ids expanded and sorted (a minute under ASan), and their union
  // again in the comparison; exclusive CPUs are disjoint, so all entries together name at most 16384.
  std::string text = R"({"policyName":"static","entries":{"p":{)";
  for (int i = 0; i < 40; ++i) text += (i ? "," : "") + fmt::format(R"("c{:03}":"0-16383")", i);
  text += "}}}";
  EXPECT_EQ(failure([&] { parse_cpu_manager_state(text); }),
            "entries.p.c001: the entries name more than 16384 ids in all; no node has that many");
  text = R"({"policyName":"static","entries":{"p":{"a":"0-8191","b":"8192-16383"}}})";
  EXPECT_EQ(parse_cpu_manager_state(text).entries["p"]["b"].size(), 8192u);
}

TEST(ManagersRead, ANumberBeyondADoubleIsAParseFailureWithAPlace) {
  // nlohmann throws out_of_range.406 (not a parse_error) on 1e999: it was neither caught as "not JSON" nor
  // an std::invalid_argument.
  for (auto parse : {+[](const std::string& t) { parse_cpu_manager_state(t); },
                     +[](const std::string& t) { parse_memory_manager_state(t); }}) {
    std::string m = failure([&] { parse(R"({"policyName":"static","checksum":1e999})"); });
    EXPECT_EQ(m, "not the JSON the kubelet writes: number overflow parsing '1e999'");
  }
}

TEST(ManagersRead, ANumaNodeIdOutsideAnIntIsRefusedNotWrapped) {
  // get<int> of 4294967296 wrapped to node 0, and 2^64-1 to -1.
  for (const char* id : {"4294967296", "18446744073709551615", "-1", "4096"}) {
    std::string text = std::string(R"({"policyName":"Static","entries":{"p":{"c":[{"numaAffinity":[)") + id + "]}]}}}";
    std::string m = failure([&] { parse_memory_manager_state(text); });
    EXPECT_NE(m.find(std::string("entries.p.c[0].numaAffinity: node id ") + id + " is not between 0 and 4095"), std::string::npos) << m;
  }
  auto s = parse_memory_manager_state(R"({"policyName":"Static","entries":{"p":{"c":[{"numaAffinity":[1,0,1]}]}}})");
  EXPECT_EQ(s.entries["p"]["c"], (std::vector<int>{0, 1}));
}

TEST(ManagersRead, GoQuoteEscapesAreDecoded) {
  // What Go's strconv.Quote writes (the kubelet's %q): \a \b \f \v, \xHH for a byte that is not UTF-8,
  // \uHHHH and \UHHHHHHHH for characters that are not printable. \u was refused as an unknown escape.
  auto m = parse_downward_api_file("a=\"x\\u200by\"\nb=\"\\U0001F600\"\nc=\"\\a\\b\\f\\v\\t\"\nd=\"\\xff\\x41\"\n");
  EXPECT_EQ(m["a"], "x\xE2\x80\x8By");
  EXPECT_EQ(m["b"], "\xF0\x9F\x98\x80");
  EXPECT_EQ(m["c"], "\a\b\f\v\t");
  EXPECT_EQ(m["d"], "\xFF" "A");
}

TEST(ManagersRead, ABadHexEscapeNamesTheLine) {
  // std::stoi("zz", 16) threw std::invalid_argument("stoi"): a warning without a place.
  EXPECT_EQ(failure([] { parse_downward_api_file("ok=\"1\"\nhami.io/vgpu-node=\"gpu-\\xzz\"\n"); }),
            "line 2: \\x needs 2 hex digits");
  EXPECT_EQ(failure([] { parse_downward_api_file("a=\"\\u12\"\n"); }), "line 1: \\u needs 4 hex digits");
  EXPECT_EQ(failure([] { parse_downward_api_file("a=\"\\uD800\"\n"); }), "line 1: \\uD800 is not a Unicode character");
  EXPECT_EQ(failure([] { parse_downward_api_file("a=\"\\U00110000\"\n"); }), "line 1: \\U00110000 is not a Unicode character");
}

TEST(ManagersRead, AMalformedStateFileIsOneWarningNamingTheFile) {
  std::string path = ::testing::TempDir() + "/managers_read_1e999_cpu_manager_state";
  std::ofstream(path) << R"({"policyName":"static","defaultCpuSet":"0-2147483647"})";
  ManagersOptions opt;
  opt.cpu_manager_state = path;
  opt.memory_manager_state = opt.kubelet_config = opt.annotations = opt.labels = ::testing::TempDir() + "/absent";
  opt.given = {"--cpu-manager-state"};
  opt.pod_uid = "p";
  ManagersReport r = read_managers(opt, AuditObservation{});
  EXPECT_EQ(r.cpu.file.status, "malformed");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind(path + ": defaultCpuSet: CPU id 2147483647 is above 16383", 0), 0u) << r.warnings[0];
}

}  // namespace
