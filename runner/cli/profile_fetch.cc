#include "runner/cli/profile_fetch.h"

#include <filesystem>

#include "runner/common/settings.h"

namespace ptsn::cli {

NetworkChoice NetworkChoice::From(const Args& args) {
  const Settings& s = GlobalSettings();
  return {client::ServersFrom(s, args.Values("--server")), args.Has("--offline") || s.GetBool("network.offline")};
}

ProfileFetcher::ProfileFetcher(profile::ProfileRepository& repo, NetworkChoice network)
    : repo_(repo), network_(std::move(network)) {}
ProfileFetcher::~ProfileFetcher() = default;

client::ProfileSource& ProfileFetcher::Source() {
  if (!source_) {
    client_ = std::make_unique<client::ObClient>(network_.servers, network_.offline);
    auto options = client::ProfileSourceOptions::FromSettings(GlobalSettings());
    options.on_disk = [this](const std::string& qualified) {
      auto ref = repo_.FindProfile(qualified);
      return ref && ref->identifier == qualified;
    };
    source_ = std::make_unique<client::ProfileSource>(std::move(options), *client_);
  }
  return *source_;
}

bool ProfileFetcher::EnsureProfile(const std::string& name) {
  std::error_code ec;
  if (std::filesystem::is_directory(name, ec) || repo_.FindProfile(name) || repo_.FindSuite(name)) return false;
  if (name.rfind("local/", 0) == 0) return false;  // the user's own profiles: no server has them (as PTS)
  if (!client::FetchByName(Source(), name)) return false;
  repo_.Rescan();
  return true;
}

}  // namespace ptsn::cli
