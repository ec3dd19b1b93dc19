// The OpenBenchmarking.org client protocol of PTS 10.8.6 (pts_openbenchmarking.php and its
// callers), as plain data with the functions both sides use: the client builds requests and
// decodes answers, the server decodes requests and encodes answers. Every request is
// `POST /f/client.php` with form fields `r` (its name), `client_version` and the request's own
// fields; every answer is JSON wrapped in {"openbenchmarking": {...}}, except the repository
// index (the index document itself, which PTS stores as it comes), the system-log zip (raw
// bytes) and the connectivity probe `GET /PTS` (body "PTS"). Shapes are pinned by
// protocol_test.cc against PTS's source and the requests the real client was recorded making.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runner/openbenchmarking/wire.h"

namespace ptsn::ob {

inline constexpr char kClientVersion[] = "10860";  // PTS_CORE_VERSION, sent as client_version
inline constexpr char kPtsVersion[] = "10.8.6";    // PTS_VERSION: request_gsid's client_version
inline constexpr char kUserAgent[] = "PhoronixTestSuite/Nesseby";
inline constexpr char kClientPath[] = "/f/client.php";
inline constexpr char kProbePath[] = "/PTS";  // GET; a server that answers "PTS" is reachable
inline constexpr char kProbeBody[] = "PTS";
// OpenBenchmarking.org as PTS reaches it: https, and http when OpenSSL is missing (NO_OPENSSL).
inline constexpr char kOpenBenchmarkingHttps[] = "https://openbenchmarking.org";
inline constexpr char kOpenBenchmarkingHttp[] = "http://openbenchmarking.org";

// What a malformed or refusing answer (or request) is reported as; the message names the field.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- requests ---------------------------------------------------------------------------------

struct Request {
  std::string name;         // the `r` field
  wire::FormFields fields;  // all of them, `r` and `client_version` first, in PTS's order
  std::string Body() const { return wire::EncodeForm(fields); }
};

Request RequestGsid(const std::string& client_os);                  // client_version = PTS_VERSION
Request RepoIndex(const std::string& repo);                         // repo
Request AcquireTest(const std::string& qualified_identifier);       // i = "pts/fs-mark-1.0.3"
Request RepoChanges(const std::string& test_profile);               // test_profile = "pts/fs-mark"
Request PhoromaticServerRelayCheck();
Request IsOpenBenchmarkingResult(const std::string& id);            // i
Request CloneOpenBenchmarkingResult(const std::string& id);         // i
Request CloneOpenBenchmarkingSystemLogs(const std::string& id);     // i
// r=upload_test_result is wire::EncodeUpload's.

// ---- answers ----------------------------------------------------------------------------------

// One test (or suite) of a repository index, as OpenBenchmarking.org's pts.index holds it.
// OpenBenchmarking writes the numbers as strings ("256"); they stay text here.
struct IndexTest {
  std::string title, description, test_type, software_type, status;
  std::vector<std::string> supported_platforms, internal_tags;
  std::string test_extends;                 // "" or "pts/parent"
  std::optional<std::string> package_hash;  // null in OpenBenchmarking's own index
  std::string average_run_time, average_install_time, last_updated, first_added, popularity, downloads;
  std::vector<std::string> versions;        // newest first
};
struct IndexSuite {
  std::string title, description, test_type, status, last_updated;
  std::optional<std::string> package_hash;
  std::vector<std::string> versions;  // newest first
};
struct RepoIndexDoc {
  std::int64_t generated = 0;  // main.generated, Unix seconds
  std::map<std::string, IndexTest> tests;
  std::map<std::string, IndexSuite> suites;
};
std::string EncodeRepoIndex(const RepoIndexDoc& index);
// Throws ProtocolError when `json` is not an index (no main.generated / tests object).
RepoIndexDoc DecodeRepoIndex(std::string_view json);

// acquire_test: the profile's zip (base64) and the sha1 of the zip bytes; `changes` and
// `generated` (PTS writes them to changelog.json / generated.json) are passed through as JSON.
struct AcquiredTest {
  std::string zip;             // the decoded bytes, sha1-checked by DecodeAcquireTest
  std::string sha1;
  std::string changes_json;    // "" when absent
  std::string generated_json;  // "" when absent
};
std::string EncodeAcquireTest(const AcquiredTest& test);  // sha1 computed from `zip` when empty
// Throws ProtocolError: the server's error, no zip, bad base64, or a zip whose sha1 differs from
// sha1_hash (PTS's check: the profile is not used then).
AcquiredTest DecodeAcquireTest(std::string_view json, const std::string& qualified_identifier);

// clone_openbenchmarking_result: the composite.xml text (not base64) and the sha1 of the system
// log zip when the result has one (false otherwise).
struct ClonedResult {
  std::string composite_xml;
  std::optional<std::string> system_logs_sha1;
};
std::string EncodeClonedResult(const ClonedResult& result);
ClonedResult DecodeClonedResult(std::string_view json, const std::string& id);

// is_openbenchmarking_result: {"result": {"valid": "TRUE"|"FALSE"}}.
std::string EncodeIsResult(bool valid);
bool DecodeIsResult(std::string_view json);

// upload_test_result.
struct UploadAnswer {
  std::string id, url;
};
std::string EncodeUploadAnswer(const UploadAnswer& answer);
UploadAnswer DecodeUploadAnswer(std::string_view json);

// {"openbenchmarking": {}}: what request_gsid, phoromatic_server_relay_check and repo_changes get
// from a server that hands out no GSID, knows no relay and keeps no change log.
std::string EncodeEmpty();
// {"openbenchmarking": {section: {"error": message}}} ("result", "test", "upload", ...).
std::string EncodeError(const std::string& section, const std::string& message);
// The message of an error answer, wherever it sits ("" when none or not JSON).
std::string ErrorMessage(std::string_view json);

// ---- identifiers ------------------------------------------------------------------------------

// "pts/fs-mark-1.0.3" as a zip/profile path component pair, refusing anything that could leave a
// directory: repo and name-version of [a-z0-9._-] (PTS's identifiers are lower case), no "..".
struct QualifiedName {
  std::string repo, name, version;  // version "" when none was given
  std::string Identifier() const { return repo + "/" + name + (version.empty() ? "" : "-" + version); }
};
std::optional<QualifiedName> ParseQualifiedName(std::string_view identifier);

}  // namespace ptsn::ob
