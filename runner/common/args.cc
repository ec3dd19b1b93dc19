#include "runner/common/args.h"

#include "runner/common/error.h"

namespace ptsn {

Args Args::Parse(const std::vector<std::string>& argv, const ArgSpec& spec) {
  Args a;
  bool only_positional = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      a.positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string name = arg, value;
    bool has_inline = false;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_inline = true;
    }
    if (spec.value_options.count(name)) {
      if (!has_inline) {
        if (i + 1 >= argv.size()) throw Error("option " + name + " needs a value");
        value = argv[++i];
      }
      a.options_.emplace(name, value);
    } else if (spec.flags.count(name) && !has_inline) {
      a.options_.emplace(name, "");
    } else if ((name == "--help" || name == "-h") && !has_inline) {
      throw HelpRequested();
    } else {
      throw Error("unknown option " + name);
    }
  }
  return a;
}

bool Args::Has(const std::string& name) const { return options_.count(name) > 0; }

std::optional<std::string> Args::Value(const std::string& name) const {
  auto range = options_.equal_range(name);
  if (range.first == range.second) return std::nullopt;
  return std::prev(range.second)->second;
}

std::vector<std::string> Args::Values(const std::string& name) const {
  std::vector<std::string> out;
  auto range = options_.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
  return out;
}

std::string Args::ValueOr(const std::string& name, const std::string& fallback) const {
  auto v = Value(name);
  return v ? *v : fallback;
}

}  // namespace ptsn
