// PTS's results parser on a profile's results-definition.xml and a trial's log, both untrusted
// (profiles come from servers, logs from the programs they run). Input: the definition, a NUL,
// the run's arguments, a NUL, the log (a seed per conformance case of ../shared). Each part is
// parsed as the runner parses it; the parser must give results or reasons, never crash.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner/common/error.h"
#include "runner/profile/profile_loader.h"
#include "runner/profile/results_parser.h"
#include "runner/profile/xml_tree.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptsn::profile;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t first = in.find('\0');
  if (first == std::string_view::npos) return 0;
  const size_t second = in.find('\0', first + 1);
  if (second == std::string_view::npos) return 0;
  const std::string_view definition_xml = in.substr(0, first);
  const std::string arguments(in.substr(first + 1, second - first - 1));
  const std::string log(in.substr(second + 1));
  try {
    std::vector<LoadIssue> issues;
    const XmlElement root = ParseXmlString(definition_xml, "results-definition.xml");
    ResultsDefinition definition = ParseResultsDefinition(root, "results-definition.xml", &issues);
    ParseContext context;
    context.arguments = arguments;
    context.description = "Fuzz: " + arguments;
    context.result_scale = "MB/s";
    context.proportion = "HIB";
    ParseSession session(std::move(definition), context);
    std::vector<std::string> trace;
    session.ParseLog(log, &trace);
    session.ParseLog(log, &trace);  // a second trial, as runs have several
    for (const ParsedResult& r : session.Results()) {
      FinalizeResult(r);
      FinalizeResult(r, "MAX");
      FinalizeResult(r, "MIN");
    }
  } catch (const ptsn::Error&) {
  }
  return 0;
}
