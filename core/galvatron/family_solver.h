// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

#include "core/common/progress.h"
#include "core/galvatron/cost_model.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_task.h"
#include "core/galvatron/stage_dp.h"

namespace stratex::galvatron {

// What one search task found: Galvatron's throughput -1 (no strategy passes the task's filters),
// 0 (nothing fits in memory) or gbsz / time_cost with the plan. Kept compact (strategy indices into
// the StrategySpace) because a batch-size range has tens of thousands of tasks; materializePlan()
// turns the ones a caller wants into Plans.
struct TaskOutcome {
    enum class Status { NoStrategies, Infeasible, Feasible };
    Status status = Status::NoStrategies;
    double throughput = -1;
    double time_cost_s = 0;
    std::vector<std::uint16_t> layers; // index into StrategySpace::layers, per layer
    int embedding = -1; // index into StrategySpace::embeddings
    std::vector<int> memory_cost_mb_per_stage;
    std::vector<int> memory_remaining_mb_per_stage;
};

Plan materializePlan(
    const TaskOutcome& outcome, const SearchTask& task, const StrategySpace& space, const SearchSettings& settings);

struct SolverStats {
    std::int64_t dp_runs = 0; // stage knapsacks computed
    std::int64_t dp_readouts = 0; // (task, embedding, stage) read-outs
    std::int64_t galvatron_dp_calls = 0; // DP calls Galvatron main makes for the same tasks
    std::int64_t dp_segments = 0; // change points stored by the knapsacks
    std::int64_t pruned_strategies = 0; // (knapsack, strategy) pairs removed as dominated

    SolverStats& operator+=(const SolverStats& other);
};

// Read-only state every worker shares.
struct SearchContext {
    const galvatron::CostModel* model = nullptr;
    const SearchSettings* settings = nullptr;
    const StrategySpace* space = nullptr;
    const std::vector<SearchTask>* tasks = nullptr;
    galvatron::MemoryBudget budget;
};

// Solves a "family" of tasks: same pp, same micro-batch (gbsz / chunks) and same chunk class
// (chunks == 1 or not; with GPipe the chunk count itself). Their per-layer times, memory weights,
// transition costs and embedding costs are identical, so each distinct candidate set needs its
// knapsacks once, and each (candidate set, budget row) one read-out, whatever the number of
// tasks; only the pipeline formula differs per chunk count. One solver per worker thread: it keeps
// its workspaces, so steady-state solving does not allocate in the knapsack loops.
class FamilySolver {
public:
    explicit FamilySolver(const SearchContext& context);

    // Writes outcomes[task.index] for every task of the family.
    void solve(const std::vector<int>& taskIndices, std::vector<TaskOutcome>& outcomes, const ProgressSink& progress,
        SolverStats& stats);

private:
    struct Readout;
    const SearchContext& m_context;
    std::vector<StageDp> m_dps;
    std::vector<std::vector<int>> m_kept; // per knapsack: strategies left after dominance pruning
};

// Key that groups tasks into families.
struct FamilyKey {
    int pp = 0;
    int micro_batch = 0;
    int chunk_class = 0;
    auto operator<=>(const FamilyKey&) const = default;
};
FamilyKey familyKey(const SearchTask& task, galvatron::PipelineType pipeline);

} // namespace stratex::galvatron
