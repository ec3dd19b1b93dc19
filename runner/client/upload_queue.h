// Uploads that could not reach the server wait in a directory, one JSON file each
// ({"server": URL, "form": "<x-www-form-urlencoded body>", "name": saved name, "queued_at": T,
// "endpoint": path the form is POSTed to, absent = /f/client.php}),
// written atomically, until `upload-result --retry-pending` sends them.
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
// Oldest first. A file that cannot be read is reported by ptsn::Error naming it.
std::vector<PendingUpload> PendingUploads(const std::string& queue_dir);
void RemovePending(const PendingUpload& upload);

}  // namespace ptsn::client
