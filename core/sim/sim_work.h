// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much a pipeline simulation will cost before it runs (issue 26: `simulate` of 2048 stages x
// 2048 micro-batches took 2.7 GB and its trace ~5 GB; a pytorch-schedule export at the simulator's
// budget 2.3 GB). The simulator builds an op per chunk pass (a run of consecutive layers on one
// device) of each micro-batch, forward and backward, with the sends between them; its time and
// memory follow the number of chunk passes, the timeline roughly doubles both, and a Chrome trace
// of the timeline writes about 1.1 kB per pass.

#include <string>

#include "core/common/work_budget.h"
#include "core/sim/sim_spec.h"

namespace stratex::sim {

// Chunk passes of one input: runs of consecutive layers on one device x micro-batches.
double simulationSteps(const SimulationInput& input);

// `job` names it for a person ("simulation", "pytorch-schedule export"); `steps` as
// simulationSteps counts them, summed over everything simulated at once, `timeline` whether a
// timeline is built (SimulationOptions::build_timeline), `tracedSteps` those of them written as a
// Chrome trace (core/export/chrome_trace.h).
WorkEstimate estimateSimulationWork(std::string job, double steps, bool timeline, double tracedSteps = 0);

} // namespace stratex::sim
