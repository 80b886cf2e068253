// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include "core/galvatron/family_solver.h"
#include "core/galvatron/plan.h"

namespace stratex::galvatron {

// Galvatron's winner: strictly higher throughput replaces, so the earliest task wins ties. Returns
// the task index, or -1 when no task has a plan.
int bestTask(const std::vector<TaskOutcome>& outcomes);

// The best task of each (pp, TP/SP mode, gbsz, chunks) group (over its buffer-TP tasks, earliest
// wins ties), in task order.
std::vector<int> groupBestTasks(const std::vector<TaskOutcome>& outcomes, const std::vector<SearchTask>& tasks);

// The k plans of highest throughput (ties: task order).
std::vector<Plan> topPlans(const std::vector<Plan>& candidates, int k);

// Plans no other plan beats on both throughput (higher) and peak memory (lower), with ties on
// both kept once (the earliest), sorted by peak memory, then throughput descending.
std::vector<Plan> paretoPlans(const std::vector<Plan>& candidates);

} // namespace stratex::galvatron
