// What the commands that run tests share (cmd_run.cc, cmd_encryption_cost.cc): the settings, the
// profile repository, this machine's reader, the process runner and the fetcher, and pts/NAME on
// demand; a run session over them.
#pragma once

#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "runner/cli/profile_fetch.h"
#include "runner/common/args.h"
#include "runner/common/settings.h"
#include "runner/exec/process.h"
#include "runner/install/fetcher.h"
#include "runner/profile/profile_repository.h"
#include "runner/run/prompter.h"
#include "runner/run/run_session.h"
#include "runner/sysinfo/system_reader.h"

namespace ptsn::cli {

inline bool OnTerminal() { return isatty(0) && isatty(1); }

struct Context {
  const Settings& settings = GlobalSettings();
  profile::ProfileRepository repo = profile::ProfileRepository::FromSettings(GlobalSettings());
  std::unique_ptr<sysinfo::SystemReader> reader = sysinfo::MakeRootedReader("/", GlobalSettings().Home() + "/cache");
  exec::PosixProcessRunner runner;
  std::unique_ptr<install::Fetcher> fetcher;
  bool offline = false;
  ProfileFetcher profiles;  // pts/NAME on demand
  // Questions on the terminal, to standard output; asked only when `interactive`.
  std::unique_ptr<run::Prompter> prompter;
  std::unique_ptr<run::RunSession> session;

  explicit Context(const Args& args, bool interactive = false)
      : profiles(repo, NetworkChoice::From(args)), prompter(run::StreamPrompter(interactive, std::cin, std::cout)) {
    offline = args.Has("--offline") || settings.GetBool("network.offline");
    fetcher = offline ? install::MakeOfflineFetcher() : install::MakeCurlFetcher();
    run::SessionTools tools{settings, repo, *reader, runner, *fetcher, offline,
                            [this](const std::string& name) { profiles.EnsureProfile(name); }};
    session = std::make_unique<run::RunSession>(std::move(tools), *prompter, std::cout, std::cerr);
  }
};

}  // namespace ptsn::cli
