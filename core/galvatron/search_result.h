// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/galvatron/family_solver.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_task.h"

namespace stratex::galvatron {

// One search task's result for tables: Galvatron's throughput (-1 no strategy, 0 out of memory).
struct TaskSummary {
    SearchTask task;
    TaskOutcome::Status status = TaskOutcome::Status::NoStrategies;
    double throughput_samples_per_s = -1;
    double time_cost_s = 0; // when feasible
    int peak_memory_mb = 0; // when feasible
    std::vector<int> memory_cost_mb_per_stage; // when feasible
    int vtp = 0; // the task's best embedding / LM-head choice, when feasible
    int vsp = 0;
    int embed_sdp = 0;
};

struct SearchStats {
    double search_time_s = 0; // wall clock of the whole search
    std::int64_t tasks = 0; // Galvatron tasks (gbsz, chunks, pp, mode, buffer TP)
    std::int64_t families = 0; // task groups sharing per-layer costs
    std::int64_t work_units = 0; // (family, layer candidates) groups sharing knapsacks, run in parallel
    std::int64_t dp_calls = 0; // stage knapsacks computed
    std::int64_t dp_readouts = 0;
    std::int64_t galvatron_dp_calls = 0; // DP calls Galvatron main makes for the same search
    std::int64_t dp_segments = 0;
    std::int64_t pruned_strategies = 0; // (knapsack, strategy) pairs removed as dominated
    int threads = 1;
};

struct SearchResult {
    std::optional<Plan> best; // Galvatron's answer: max throughput, earliest task on ties
    std::vector<Plan> top; // best plan per (pp, TP/SP mode, gbsz, chunks), by throughput, at most K
    std::vector<Plan> pareto; // of those: not beaten on both throughput and peak memory, by memory
    std::vector<TaskSummary> tasks; // every task in Galvatron's order
    SearchStats stats;
    std::vector<std::string> notes; // things the caller should know (skipped candidates, ...)
};

} // namespace stratex::galvatron
