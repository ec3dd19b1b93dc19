// The questions a run may ask its user (an option's value, a name for the result, whether to
// install packages), behind one interface: the commands answer from a terminal, tests from a
// script, and a run that cannot ask says which answer is missing instead.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

namespace ptsn::run {

class Prompter {
 public:
  virtual ~Prompter() = default;
  virtual bool Interactive() const = 0;  // a TTY and not --non-interactive
  // Shows `question` and returns the answer line (without the newline); "" at end of input.
  virtual std::string Ask(const std::string& question) = 0;
};

// Questions to `out`, answers from `in`; `interactive` is the caller's decision.
std::unique_ptr<Prompter> StreamPrompter(bool interactive, std::istream& in, std::ostream& out);

// stdin/stderr; interactive when both are TTYs and `non_interactive` is false.
std::unique_ptr<Prompter> TerminalPrompter(bool non_interactive);

// An empty answer, "y" or "yes" (any case, spaces around): the default-yes questions' "[Y/n]".
bool YesByDefault(const std::string& answer);

}  // namespace ptsn::run
