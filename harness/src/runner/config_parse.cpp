// YAML -> ExperimentConfig with validation (see config.h): the YAML visitor of the config's description
// (config_fields.h). Every error names file, line and key.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "config_fields.h"
#include "config_interference.h"
#include "placebench/harness/decision_spec/decision_spec.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/runner/config.h"
#include "placebench/harness/units.h"
#include "placebench/harness/yaml_check.h"
#include "placebench/hostpipe/input_file.h"

namespace placebench::harness {
namespace {

using detail::IntRange;
using detail::Need;
using detail::NumberRange;
using detail::ParamKind;
using detail::ParamSpec;
using detail::YamlContext;

// The keys a description lists, in its order (for check_keys' "accepted keys").
struct KeyList {
  std::vector<std::string> keys;
  void add(const char* key) { keys.emplace_back(key); }
  template <class... A> void text(const char* key, A&&...) { add(key); }
  template <class... A> void integer(const char* key, A&&...) { add(key); }
  template <class... A> void integer_not_below(const char* key, A&&...) { add(key); }
  template <class... A> void number(const char* key, A&&...) { add(key); }
  template <class... A> void boolean(const char* key, A&&...) { add(key); }
  template <class... A> void choice(const char* key, A&&...) { add(key); }
  template <class... A> void optional_integer(const char* key, A&&...) { add(key); }
  template <class... A> void size(const char* key, A&&...) { add(key); }
  template <class... A> void map(const char* key, A&&...) { add(key); }
  template <class... A> void arm_list(const char* key, A&&...) { add(key); }
  template <class... A> void workload(const char* key, A&&...) { add(key); }
  template <class... A> void contention(const char* key, A&&...) { add(key); }
  template <class... A> void decision(const char* key, A&&...) { add(key); }
  template <class... A> void interference(const char* key, A&&...) { add(key); }
  template <class... A> void retired(const char* key, A&&...) { add(key); }
  void rule(bool, const char*, const char*) {}
};

template <class Describe>
std::vector<std::string> keys_of(Describe&& describe) {
  KeyList list;
  describe(list);
  return std::move(list.keys);
}

// Reads one YAML map through a description. A key the map leaves out keeps its default; a map that is
// not given at all (`given` false) reads as one without keys.
class YamlFields {
 public:
  YamlFields(const YamlContext& c, YAML::Node node, std::string where, bool given = true)
      : c_(c), node_(std::move(node)), where_(std::move(where)), given_(given) {}

  // Checks the map's keys against the description's, then reads every field.
  template <class Describe>
  void read(Describe&& describe) {
    if (given_) c_.check_keys(node_, where_, keys_of(describe));
    describe(*this);
  }

  void text(const char* key, std::string& v, Need need = {}) {
    if (has(key, need)) v = c_.text(at(key), path(key));
    if (need.empty && v.empty()) c_.fail(has(key) ? at(key) : node_, path(key), need.empty);
  }
  template <class T>
  void integer(const char* key, T& v, IntRange r) {
    if (has(key)) v = static_cast<T>(c_.integer(at(key), path(key), r.lo, r.hi));
  }
  template <class T>
  void integer_not_below(const char* key, T& v, IntRange r, const char* other_key, const T& other) {
    integer(key, v, r);
    if (v < other) c_.fail(node_, where_, fmt::format("{} is below {}", key, other_key));
  }
  void number(const char* key, double& v, NumberRange r) {
    if (has(key)) v = c_.number(at(key), path(key), r.lo, r.hi);
  }
  void boolean(const char* key, bool& v) {
    if (has(key)) v = c_.boolean(at(key), path(key));
  }
  template <class E, class Table>
  void choice(const char* key, E& v, const Table& table) {
    if (has(key)) v = detail::value_in<E>(table, c_.one_of(at(key), path(key), detail::names_of(table)));
  }
  void optional_integer(const char* key, std::optional<int>& v, IntRange r) {
    if (has(key)) v = static_cast<int>(c_.integer(at(key), path(key), r.lo, r.hi));
  }
  void size(const char* key, std::uint64_t& v, const char* forms) {
    if (!has(key)) return;
    try {
      v = parse_size(c_.text(at(key), path(key)), path(key));
    } catch (const InputError&) {
      c_.fail(at(key), path(key), std::string("bad size; use ") + forms);
    }
  }
  template <class Describe>
  void map(const char* key, Describe&& describe) {
    YamlFields sub(c_, has(key) ? at(key) : YAML::Node(), path(key), has(key));
    sub.read(describe);
  }
  void arm_list(const char* key, std::vector<Arm>& v, const Arm& baseline);
  void workload(const char* key, WorkloadSpec& w, Need need);
  void contention(const char* key, nlohmann::json& v);
  void decision(const char* key, std::optional<decisions::DecisionSpec>& v, const std::string&);
  void interference(const char* key, std::vector<Condition>& v) {
    if (has(key)) v = detail::parse_interference_yaml(c_, at(key), path(key));
  }
  void retired(const char* key, const char* why) {
    if (has(key)) c_.fail(at(key), path(key), why);
  }
  void rule(bool ok, const char* key, const char* problem) {
    if (!ok) c_.fail(has(key) ? at(key) : node_, path(key), problem);
  }

 private:
  bool has(const char* key, Need need = {}) const {
    bool given = given_ && node_.IsMap() && node_[key];
    if (!given && need.missing) c_.fail(node_, path(key), need.missing);
    return given;
  }
  YAML::Node at(const char* key) const { return node_[key]; }
  std::string path(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }
  nlohmann::json params(const std::vector<ParamSpec>& specs);
  void param(const ParamSpec& spec, nlohmann::json& p);

  const YamlContext& c_;
  const YAML::Node node_;
  std::string where_;
  bool given_;
};

void YamlFields::arm_list(const char* key, std::vector<Arm>& v, const Arm& baseline) {
  if (has(key)) {
    const YAML::Node& list = at(key);
    if (!list.IsSequence()) c_.fail(list, path(key), "must be a list, e.g. [remote, unpinned]");
    const std::vector<std::string> names = detail::names_of(detail::arm_table());
    for (const auto& e : list) {
      Arm a = detail::value_in<Arm>(detail::arm_table(), c_.one_of(e, path(key), names));
      if (std::find(v.begin(), v.end(), a) != v.end())
        c_.fail(e, path(key), "lists " + arm_name(a) + " twice (two identical rows); keep one");
      v.push_back(a);
    }
  }
  if (v.empty()) v = {Arm::kRemote};
  for (Arm a : v)
    if (a == baseline) c_.fail(node_, path(key), "repeats the baseline arm " + arm_name(a));
}

// One parameter of a pipeline or collective workload, into p (as run.json keeps it).
void YamlFields::param(const ParamSpec& spec, nlohmann::json& p) {
  const char* key = spec.key;
  if (!has(key)) {
    if (!spec.fallback.is_null()) p[key] = spec.fallback;
    return;
  }
  const YAML::Node& n = at(key);
  switch (spec.kind) {
    case ParamKind::kCount:
      p[key] = c_.integer(n, path(key), static_cast<long long>(spec.range.lo), static_cast<long long>(spec.range.hi));
      return;
    case ParamKind::kNumber: p[key] = c_.number(n, path(key), spec.range.lo, spec.range.hi); return;
    case ParamKind::kChoice:
      p[key] = c_.one_of(n, path(key), std::vector<std::string>(spec.choices.begin(), spec.choices.end()));
      return;
    case ParamKind::kSize:
    case ParamKind::kDuration:
      try {
        std::string text = c_.text(n, path(key));
        if (spec.kind == ParamKind::kSize)
          p[key] = parse_size(text, path(key));
        else
          p[key] = parse_duration_s(text, path(key));
      } catch (const InputError&) {
        const char* bad = spec.kind == ParamKind::kSize ? "bad size; use " : "bad duration; use ";
        c_.fail(n, path(key), bad + std::string(spec.forms));
      }
      return;
    case ParamKind::kImage:
      try {
        auto [width, height] = parse_image_size(c_.text(n, path(key)), pipeline_config_key);
        p["image_width"] = width;
        p["image_height"] = height;
      } catch (const PipelineInputError& e) {
        c_.fail(n, path(key), e.problem);
      }
      return;
  }
}

nlohmann::json YamlFields::params(const std::vector<ParamSpec>& specs) {
  nlohmann::json p = nlohmann::json::object();
  for (const ParamSpec& spec : specs) param(spec, p);
  return p;
}

// A workload: its type first (the keys it accepts depend on it), then the staging keys or the type's
// parameters beside it.
void YamlFields::workload(const char* key, WorkloadSpec& w, Need need) {
  has(key, need);
  const YAML::Node& n = at(key);
  const std::string where = path(key);
  if (!n.IsMap() || !n["type"]) c_.fail(n, where + ".type", "missing; accepted: staging, pipeline, collective");
  w.type = c_.one_of(n["type"], where + ".type", detail::names_of(detail::kWorkloadTypes));
  YamlFields f(c_, n, where);
  std::vector<std::string> keys = {"type", "backend"};
  if (w.type == "staging")
    for (auto& k : keys_of([&](auto& v) { detail::staging_fields(v, w); })) keys.push_back(std::move(k));
  for (const ParamSpec& spec : detail::params_of(w.type)) keys.emplace_back(spec.key);
  c_.check_keys(n, where, keys);
  f.choice("backend", w.backend, detail::backends_of(w.type));
  if (w.type == "staging")
    detail::staging_fields(f, w);
  else
    w.params = f.params(detail::params_of(w.type));
  // Keys that belong to another kind of the same type: read, they would be silently ignored.
  if (w.type == "staging" && w.backend == "host" && w.memory == HostMemory::kHostAlloc)
    c_.fail(n["memory"], where + ".memory",
            "hostalloc is cudaHostAlloc and needs the cuda backend; use pinned or pageable with backend host");
  if (w.type == "pipeline" && n["batch_bytes"] && n["image"])
    c_.fail(n["batch_bytes"], where + ".batch_bytes",
            "a batch is either raw bytes (batch_bytes) or images (image: WIDTHxHEIGHT), not both; remove one");
}

void YamlFields::contention(const char* key, nlohmann::json& v) {
  if (!has(key) || at(key).IsNull()) return;
  const YAML::Node& spec = at(key);
  const std::string forms = "stream:NODE:THREADS[:SIZE][@CPUS] or spin:CPUS, joined with '+'";
  if (!spec.IsScalar()) c_.fail(spec, path(key), "must be one string: " + forms);
  try {
    parse_contention_spec(spec.as<std::string>(), path(key));  // the machine is checked by run
  } catch (const PipelineInputError& err) {
    c_.fail(spec, path(key), err.problem);
  }
  v = spec.as<std::string>();
}

// Parsed by the one parser run.json's copy goes through, at this file's lines, and kept typed.
void YamlFields::decision(const char* key, std::optional<decisions::DecisionSpec>& v, const std::string&) {
  if (!has(key)) return;
  v = decisions::parse_decision_yaml(detail::yaml_to_located_json(at(key)), c_.file);
}

// A pipeline class checked as its trials will be (validate_pipeline_config on the PipelineConfig they
// get), so that what the pipeline would refuse fails here, at its line, not after earlier trials ran.
// Keys of the experiment (steps, contention) are reported at their line in `experiment`.
void check_pipeline_class_yaml(const YamlContext& c, const YAML::Node& cls_node, const std::string& where,
                               const YamlContext& top, const YAML::Node& experiment, const ExperimentConfig& e,
                               const ClassConfig& k) {
  if (k.workload.type != "pipeline") return;
  try {
    validate_pipeline_config(pipeline_config(e, k, k.baseline), pipeline_config_key);
  } catch (const PipelineInputError& err) {
    std::string key = pipeline_config_key(err.key);
    if (key.rfind("experiment.", 0) == 0) {
      std::string sub = key.substr(std::string("experiment.").size());
      if (!experiment) c.fail(cls_node, key, err.problem);  // a default the class cannot run with
      top.fail(experiment.IsMap() && experiment[sub] ? experiment[sub] : experiment, key, err.problem);
    }
    const YAML::Node& w = cls_node["workload"];
    bool here = !key.empty() && w.IsMap() && w[key];
    c.fail(here ? w[key] : w, where + ".workload" + (key.empty() ? "" : "." + key), err.problem);
  }
}

ClassConfig parse_class(const YamlContext& c, const YAML::Node& n, const std::string& where) {
  ClassConfig k;
  YamlFields(c, n, where).read([&](auto& v) { detail::class_fields(v, k); });
  return k;
}

// A class or config file's text; the config's own file is read by load_experiment_config.
std::string read_class_file(const YamlContext& c, const YAML::Node& at, const std::string& key,
                            const std::filesystem::path& path) {
  try {
    return read_input_file(path.string(), "give a YAML file holding one class (name, workload, arms)", kMaxConfigBytes);
  } catch (const InputError& e) {
    c.fail(at, key, e.what());
  }
}

// yaml-cpp's own exceptions (a conversion no check foresaw) as InputErrors at their line of `file`.
template <class F>
auto reading_yaml(const std::string& file, F&& read) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    detail::throw_yaml_input_error(e, file);
  }
}

// A class given in place, or kept in its own file (`include`, relative to the config): parsed and checked
// at the lines of the file that holds it.
void parse_class_entry(const YamlContext& c, const YAML::Node& root, std::size_t i, ExperimentConfig& e) {
  std::string where = fmt::format("classes[{}]", i);
  YAML::Node node = root["classes"][i];
  const YAML::Node experiment = std::as_const(root)["experiment"];
  if (node.IsMap() && node["include"]) {
    c.check_keys(node, where, {"include"});
    auto path = std::filesystem::path(e.source).parent_path() / c.text(node["include"], where + ".include");
    std::string text = read_class_file(c, node["include"], where + ".include", path);
    YamlContext included{path.string()};
    YAML::Node cls = detail::load_yaml_document(text, path.string());
    reading_yaml(included.file, [&] {
      e.classes.push_back(parse_class(included, cls, "class"));
      check_pipeline_class_yaml(included, cls, "class", c, experiment, e, e.classes.back());
    });
  } else {
    e.classes.push_back(parse_class(c, node, where));
    check_pipeline_class_yaml(c, node, where, c, experiment, e, e.classes.back());
  }
  const std::string& name = e.classes.back().name;
  for (std::size_t j = 0; j + 1 < e.classes.size(); ++j)
    if (e.classes[j].name == name) c.fail(node, where + ".name", "duplicate class name " + name);
}

// Background contention runs beside a pipeline's trials only: with no pipeline class it would be ignored.
void check_contention_has_pipeline(const YamlContext& c, const YAML::Node& experiment, const ExperimentConfig& e) {
  if (e.contention.is_null()) return;
  for (const ClassConfig& k : e.classes)
    if (k.workload.type == "pipeline") return;
  c.fail(experiment["contention"], "experiment.contention",
         "only pipeline classes run with background contention, and no class here is one; remove the key or add a "
         "pipeline class");
}

ExperimentConfig parse_config_document(const YamlContext& c, const YAML::Node& root, const std::string& source) {
  if (!root.IsMap()) throw InputError(source + ":1: the file must be a mapping with 'experiment' and 'classes'");
  c.check_keys(root, "", {"experiment", "classes"});
  ExperimentConfig e;
  e.source = source;
  e.name = std::filesystem::path(source).stem().string();
  const YAML::Node experiment = std::as_const(root)["experiment"];
  YamlFields fields(c, experiment, "experiment", static_cast<bool>(experiment));
  fields.read([&](auto& v) { detail::experiment_fields(v, e); });
  e.seed_given = experiment && experiment.IsMap() && experiment["seed"];
  const YAML::Node& classes = root["classes"];
  if (!classes || !classes.IsSequence() || classes.size() == 0)
    c.fail(classes ? classes : root, "classes", "missing or empty: list at least one workload class");
  for (std::size_t i = 0; i < classes.size(); ++i) parse_class_entry(c, root, i, e);
  check_contention_has_pipeline(c, experiment, e);
  return e;
}

}  // namespace

ExperimentConfig parse_experiment_config(const std::string& text, const std::string& source) {
  if (hostpipe::invalid_utf8_at(source))
    throw InputError(source + ": the file's name is not UTF-8 (run.json could not record it); rename the file");
  YamlContext c{source};
  YAML::Node root = detail::load_yaml_document(text, source);
  return reading_yaml(source, [&] { return parse_config_document(c, root, source); });
}

ExperimentConfig load_experiment_config(const std::string& path) {
  return parse_experiment_config(
      read_input_file(path, "give a YAML config file like configs/default.yaml", kMaxConfigBytes), path);
}

}  // namespace placebench::harness
