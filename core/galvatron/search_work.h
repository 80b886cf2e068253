// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much a Galvatron search will do, from its settings alone (before loading profiles or
// building the task list), so that both front ends can decide before starting: the CLI refuses
// beyond the work budget, the GUI asks. The number of tasks is a hard limit (every task keeps an
// outcome in memory); the knapsack work is the soft budget.

#include <cstdint>

#include "core/common/work_budget.h"
#include "core/galvatron/search_settings.h"

namespace stratex::galvatron {

struct SearchWork {
    // Search tasks (batch size x chunks x pp x TP/SP mode x buffer TP), counted as buildTasks
    // builds them; counting stops past limits::kMaxSearchTasks (then tasks_capped is true).
    std::int64_t tasks = 0;
    bool tasks_capped = false;
    // Knapsack cells, an upper bound: per task strategies of its pp squared (the DP's transition)
    // x layers x MB rows of the memory budget. Families that share knapsacks do less.
    double knapsack_cells = 0;

    bool beyondHardLimit() const { return tasks_capped; }
    WorkEstimate estimate() const;
};

SearchWork estimateSearchWork(const SearchSettings& settings);

// Throws Error beyond the hard limit on tasks and, unless settings.lift_work_budget,
// WorkBudgetExceeded beyond the work budget. search() calls it first.
void requireBoundedSearch(const SearchSettings& settings);

} // namespace stratex::galvatron
