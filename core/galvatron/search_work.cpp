// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/search_work.h"

#include <map>

#include "core/common/input_limits.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/search_task.h"
#include "core/galvatron/strategy_space.h"

namespace stratex::galvatron {

WorkEstimate SearchWork::estimate() const
{
    WorkEstimate e;
    e.job = "search";
    e.size = (tasks_capped ? "more than " : "about ") + groupedCount(double(tasks)) + " tasks, about "
        + groupedCount(knapsack_cells) + " knapsack cells";
    e.work = knapsack_cells;
    e.budget = limits::kMaxSearchWork;
    return e;
}

SearchWork estimateSearchWork(const SearchSettings& settings)
{
    SearchWork result;
    const StrategySpace space = enumerateStrategies(settings);
    std::map<int, double> strategiesOfPp;
    for (const galvatron::LayerStrategy& s : space.layers)
        strategiesOfPp[s.pp] += 1;
    const double rows = std::max(
        1, galvatron::memoryBudget(settings.memory_constraint_gb, settings.allocator_reserve_fraction).dp_budget_mb);
    const double layers = settings.model.num_layers;
    const int world = settings.world();

    // Batch sizes as batchSizes() lists them, without building the list.
    const bool settled = settings.settle_bsz > 0;
    const int first = settled ? settings.settle_bsz : std::max(settings.min_bsz, settings.bsz_scale);
    const int last = settled ? settings.settle_bsz : settings.max_bsz;
    const int step = settled ? 1 : std::max(1, settings.bsz_scale);
    for (std::int64_t gbsz = first; gbsz <= last && !result.tasks_capped; gbsz += step) {
        for (int chunks : chunkCounts(settings, int(gbsz))) {
            for (int pp : space.pipelineDegrees) {
                if (pp > chunks || pp > settings.model.num_layers)
                    continue;
                SearchTask probe;
                probe.gbsz = int(gbsz);
                probe.chunks = chunks;
                probe.pp = pp;
                const int maxDp = maxDataParallel(probe, world);
                std::int64_t tasks = 0;
                for (TpSpMode mode : kTaskModeOrder)
                    tasks += std::int64_t(globalBufferTpDegrees(mode, world, pp, maxDp, settings.max_tp_deg).size());
                const double strategies = strategiesOfPp.count(pp) ? strategiesOfPp.at(pp) : 0.0;
                result.tasks += tasks;
                result.knapsack_cells += double(tasks) * strategies * strategies * layers * rows;
            }
        }
        if (result.tasks > limits::kMaxSearchTasks)
            result.tasks_capped = true;
    }
    return result;
}

void requireBoundedSearch(const SearchSettings& settings)
{
    const SearchWork work = estimateSearchWork(settings);
    if (work.beyondHardLimit())
        throw Error("the search would have more than " + groupedCount(double(limits::kMaxSearchTasks))
            + " tasks (batch sizes x chunk counts x pipeline degrees x TP/SP modes), each kept in memory: "
              "search fewer batch sizes (a larger --bsz-scale, a narrower --min-bsz..--max-bsz) or settle the "
              "chunks (--settle-chunk)");
    const WorkEstimate estimate = work.estimate();
    if (estimate.exceedsBudget() && !settings.lift_work_budget)
        throw WorkBudgetExceeded(estimate,
            "Search fewer batch sizes, settle the batch or the chunks, or less memory per GPU, or run it anyway with "
                + std::string(kLiftWorkBudgetFlag) + " (the GUI asks).");
}

} // namespace stratex::galvatron
