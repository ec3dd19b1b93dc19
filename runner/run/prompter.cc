#include "runner/run/prompter.h"

#include <unistd.h>

#include <iostream>

#include "runner/common/strings.h"

namespace ptsn::run {

namespace {

class Streams : public Prompter {
 public:
  Streams(bool interactive, std::istream& in, std::ostream& out) : interactive_(interactive), in_(in), out_(out) {}
  bool Interactive() const override { return interactive_; }
  std::string Ask(const std::string& question) override {
    out_ << question << std::flush;
    std::string line;
    if (!std::getline(in_, line)) return "";
    return line;
  }

 private:
  bool interactive_;
  std::istream& in_;
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Prompter> StreamPrompter(bool interactive, std::istream& in, std::ostream& out) {
  return std::make_unique<Streams>(interactive, in, out);
}

std::unique_ptr<Prompter> TerminalPrompter(bool non_interactive) {
  return StreamPrompter(!non_interactive && isatty(0) && isatty(2), std::cin, std::cerr);
}

bool YesByDefault(const std::string& answer) {
  const std::string a = ToLower(Trim(answer));
  return a.empty() || a == "y" || a == "yes";
}

}  // namespace ptsn::run
