// Command-line arguments of one command: positionals, `--name value`, `--name=value`, `-o value`
// and flags. Each command declares which options take a value; anything else is an error.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ptsn {

struct ArgSpec {
  std::set<std::string> value_options;  // e.g. {"-o", "--output", "--on-clash"}
  std::set<std::string> flags;          // e.g. {"--json", "--dry-run"}
};

class Args {
 public:
  // Throws ptsn::Error ("unknown option --x", "--o needs a value") on bad input, and
  // ptsn::HelpRequested at --help or -h (unless the spec has it).
  static Args Parse(const std::vector<std::string>& argv, const ArgSpec& spec);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const;
  std::optional<std::string> Value(const std::string& name) const;  // last occurrence
  std::vector<std::string> Values(const std::string& name) const;   // every occurrence
  std::string ValueOr(const std::string& name, const std::string& fallback) const;

 private:
  std::vector<std::string> positional_;
  std::multimap<std::string, std::string> options_;
};

}  // namespace ptsn
