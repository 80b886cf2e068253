// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The inputs `plan` and `plan-compare` share: cost model and sample lengths (inputs, by hand)
// and the planner settings (pipeline sizes, memory, mode, seed: planner::plannerSettingTable()).

#include <memory>
#include <vector>

#include "app/cli/cli_parser.h"
#include "core/planner/dynapipe_cost_model.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_config.h"

namespace stratex::cli {

struct PlanInputs {
    std::unique_ptr<planner::DynapipeCostModel> model;
    std::vector<planner::Sample> samples;
    planner::PlannerConfig config;
};

void addPlanOptions(CliParser& parser);
// Validates the command line (usage errors exit 2) and loads the cost model and lengths (bad
// files are stratex::Error, exit 1).
PlanInputs readPlanOptions(const CliParser& parser);

} // namespace stratex::cli
