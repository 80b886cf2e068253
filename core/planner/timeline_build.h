// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the simulator: turns a simulation run (start time per op) into the public
// Timeline (lanes per device, receive mirrors of sends, memory curves).

#include "core/planner/sim_engine.h"
#include "core/planner/timeline.h"

namespace stratex::planner::detail {

Timeline buildTimeline(
    const SimGraph& graph, const PipelineLayout& layout, const SimulationInput& input, const SimRun& run);

} // namespace stratex::planner::detail
