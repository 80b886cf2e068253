// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <vector>

#include <QString>

#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_config.h"

namespace stratex::controllers {

// The synthetic example cost model, a Qt resource: the GUI registers it, the controller tests
// name the file in the source tree instead.
QString bundledCostModelPath();

// What the planner plans: a cost model (a DynaPipe file, or the Galvatron profile of the last
// search), sample lengths (synthetic or a file), the planner settings and the compare batches.
// A value: a job takes a copy, so later edits do not reach a running job.
struct PlannerInputs {
    bool useSearchCostModel = false; // else costModelPath
    QString costModelPath = bundledCostModelPath();
    std::shared_ptr<const planner::LayerCostModel> searchCostModel; // set once a search offers it
    bool syntheticLengths = true; // else lengthsFile
    planner::SyntheticLengthSpec synthetic { 6.5, 0.8, 256, 1 };
    QString lengthsFile;
    planner::PlannerConfig config;
    std::vector<int> compareBatches { 16, 32, 64, 128, 256 };
    // Permutation seeds each compare batch is planned with (plan-compare --seeds): > 1 gives each
    // mode's makespan spread over seeds, the luck of the shuffles.
    int compareSeeds = 1;
};

// What the inputs make, on the worker: the parsed cost model and the samples.
struct LoadedPlannerInputs {
    std::shared_ptr<const planner::LayerCostModel> model;
    std::vector<planner::Sample> samples;
};

// Cheap checks for the GUI thread, so a missing file is reported before a job starts: empty when
// the inputs can be handed to a job, else what is wrong. Opens (does not read) the cost model.
QString plannerInputsProblem(const PlannerInputs& inputs);

// Reads and parses the cost model and draws or reads the samples; for a worker thread. Throws
// stratex::Error naming the file (and the key path of a malformed cost model).
LoadedPlannerInputs loadPlannerInputs(const PlannerInputs& inputs);

} // namespace stratex::controllers
