// Uploads that could not reach the server wait in a directory, one JSON file each
// ({"server": URL, "form": "<x-www-form-urlencoded body>", "name": saved name, "queued_at": T,
// "endpoint": path the form is POSTed to, absent = /f/client.php}),
// written atomically, until `upload-result --retry-pending` sends them. One the server refuses
// for what it is (client.h: RefusesTheUpload) is set aside in <queue>/refused/, never retried.
#pragma once

#include <string>
#include <vector>

namespace ptsn::client {

struct PendingUpload {
  std::string path;  // the queue file
  std::string server_url;
  std::string form_body;
  std::string name;
  std::string endpoint;  // "" = the OpenBenchmarking upload (/f/client.php); a fleet agent's: its task's result URL path
};

// Returns the path of the new queue file.
std::string QueueUpload(const std::string& queue_dir, const std::string& server_url, const std::string& form_body,
                        const std::string& name, const std::string& endpoint = "");
// Oldest first. A file that is not a pending upload is reported by ptsn::Error naming it, or, with
// `set_aside`, moved into refused/ and described there ("FILE: not a pending upload (...); set
// aside in refused/FILE"), so one damaged file does not stop the others.
std::vector<PendingUpload> PendingUploads(const std::string& queue_dir, std::vector<std::string>* set_aside = nullptr);
void RemovePending(const PendingUpload& upload);
// Moves the queue file into refused/ beside it (made if need be); returns its new path.
std::string SetAsideRefused(const PendingUpload& upload);

}  // namespace ptsn::client
