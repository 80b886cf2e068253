// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the simulator: turns a simulation run (start time per op) into the public
// Timeline (lanes per device, receive mirrors of sends, memory curves).

#include "core/sim/sim_engine.h"
#include "core/sim/timeline.h"

namespace stratex::sim::detail {

Timeline buildTimeline(
    const SimGraph& graph, const PipelineLayout& layout, const SimulationInput& input, const SimRun& run);

} // namespace stratex::sim::detail
