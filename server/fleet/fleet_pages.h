// The fleet's HTML pages: machines (online, last seen, hardware, current task), schedules,
// recent jobs and flags on /fleet; one machine's history on /fleet/machines/NAME as one line
// chart per test (the SVG charts of results-xml, one point per result) with its regressions
// and improvements; one job's tasks on /fleet/jobs/ID. Pure functions of stored rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/fleet/fleet_store.h"

namespace ptsn::server {

struct FleetMachineView {
  MachineRow machine;
  bool online = false;
};

std::string RenderFleetPage(const std::vector<FleetMachineView>& machines, const std::vector<ScheduleRow>& schedules,
                            const std::vector<JobRow>& jobs, const std::vector<HistoryRow>& flags, std::int64_t now);
std::string RenderMachinePage(const FleetMachineView& machine, const std::vector<HistoryRow>& history, std::int64_t now);
std::string RenderJobPage(const JobRow& job, const std::string& state);

}  // namespace ptsn::server
