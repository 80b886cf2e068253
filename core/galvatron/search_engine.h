// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include "core/common/progress.h"
#include "core/galvatron/cost_model.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_result.h"
#include "core/galvatron/search_settings.h"

namespace stratex::galvatron {

// Called each time a finished task beats every task finished before it, in the order of the final
// answer (throughput, then the earlier task): a front end shows the best plan while the search
// goes on. Calls are serialised but come from worker threads.
using BestPlanCallback = std::function<void(const Plan&)>;

// Galvatron main's strategy search (docs/galvatron-search.md §2-§5): the same tasks, the same
// per-stage knapsack with the same tie-breaking, the same winner - computed by families of tasks
// that share their knapsacks, on `threads` threads (0: all cores); the result does not depend on
// the thread count. Also returns the best plan of every (pp, TP/SP mode, gbsz, chunks) as the
// top-K list and the throughput / peak-memory Pareto set.
//
// Reports progress (fraction of task families done) and throws Cancelled within a knapsack layer
// (well under 100 ms) after progress.cancelled() turns true. Throws InputError/Error when the
// profiles lack something the searched strategies need.
SearchResult search(const SearchInputs& inputs, const SearchSettings& settings, ProgressSink& progress, int threads = 0,
    int topK = 10, const BestPlanCallback& onBestSoFar = {});

// The same on an already resolved cost model (e.g. with injected fit coefficients).
SearchResult search(const galvatron::CostModel& model, const SearchSettings& settings, ProgressSink& progress,
    int threads = 0, int topK = 10, const BestPlanCallback& onBestSoFar = {});

} // namespace stratex::galvatron
