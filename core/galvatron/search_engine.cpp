// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/search_engine.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "core/galvatron/embedding_cost.h"
#include "core/galvatron/layer_memory.h"
#include "core/galvatron/layer_time.h"
#include "core/common/parallel_for.h"
#include "core/galvatron/result_sets.h"
#include "core/galvatron/search_work.h"

namespace stratex::galvatron {

namespace {

// Galvatron raises KeyError for a missing profile entry the first time a task needs it. Costing
// every strategy some task uses once, in a fixed order, makes the first such error the same
// whatever the thread count, and reports it before the long part of the search starts.
void checkProfilesCover(const galvatron::CostModel& model, const SearchSettings& settings, const StrategySpace& space,
    const std::vector<SearchTask>& tasks, const ProgressSink& progress)
{
    std::vector<int> layerTask(space.layers.size(), -1);
    std::vector<int> embeddingTask(space.embeddings.size(), -1);
    for (const SearchTask& task : tasks) {
        if (task.index % 1024 == 0)
            progress.throwIfCancelled();
        const TaskCandidates candidates = taskCandidates(task, space, settings);
        for (int i : candidates.layers) {
            if (layerTask[std::size_t(i)] < 0)
                layerTask[std::size_t(i)] = task.index;
        }
        for (int i : candidates.embeddings) {
            if (embeddingTask[std::size_t(i)] < 0)
                embeddingTask[std::size_t(i)] = task.index;
        }
    }
    for (std::size_t i = 0; i < space.layers.size(); ++i) {
        if (layerTask[i] < 0)
            continue;
        const SearchTask& task = tasks[std::size_t(layerTask[i])];
        galvatron::layerTime(model, space.layers[i], task.gbsz, task.chunks);
        galvatron::layerMemory(model, space.layers[i], task.gbsz, task.chunks, 0);
    }
    for (std::size_t i = 0; i < space.embeddings.size(); ++i) {
        if (embeddingTask[i] < 0)
            continue;
        const SearchTask& task = tasks[std::size_t(embeddingTask[i])];
        galvatron::embeddingTime(model, space.embeddings[i], task.gbsz, task.chunks);
        galvatron::embeddingMemory(model, space.embeddings[i], task.gbsz, task.chunks);
    }
}

std::vector<std::string> searchNotes(
    const SearchSettings& settings, const StrategySpace& space, const std::vector<SearchTask>& tasks)
{
    std::vector<std::string> notes;
    int uneven = 0;
    for (const SearchTask& task : tasks) {
        for (const galvatron::LayerStrategy& s : space.layers) {
            if (s.pp == task.pp && s.dp <= maxDataParallel(task, settings.world()) && task.microBatch() % s.dp != 0) {
                ++uneven;
                break;
            }
        }
    }
    if (uneven > 0) {
        switch (settings.uneven_batch) {
        case UnevenBatch::Honest:
            notes.push_back(std::to_string(uneven)
                + " task(s) have micro-batches that do not divide over the data-parallel "
                  "degree; they are costed with the busiest replica's ceil(gbsz / (chunks x dp)) samples");
            break;
        case UnevenBatch::Skip:
            notes.push_back(std::to_string(uneven)
                + " task(s) have micro-batches that do not divide over some "
                  "data-parallel degrees; those strategies were skipped");
            break;
        case UnevenBatch::Galvatron:
            notes.push_back(std::to_string(uneven)
                + " task(s) have micro-batches that do not divide over the "
                  "data-parallel degree; costed as Galvatron main does (gbsz // chunks // dp), i.e. for fewer samples "
                  "than they train on");
            break;
        }
    }
    if (!settings.sequence_parallel) {
        for (const galvatron::EmbeddingStrategy& e : space.embeddings) {
            if (e.tp > 1) {
                notes.push_back("vocabulary tensor parallelism needs sequence parallelism (Galvatron asserts it): "
                                "those embedding/LM-head strategies were left out");
                break;
            }
        }
    }
    return notes;
}

} // namespace

SearchResult search(const SearchInputs& inputs, const SearchSettings& settings, ProgressSink& progress, int threads,
    int topK, const BestPlanCallback& onBestSoFar)
{
    return search(buildCostModel(inputs, settings), settings, progress, threads, topK, onBestSoFar);
}

SearchResult search(const galvatron::CostModel& model, const SearchSettings& settings, ProgressSink& progress, int threads,
    int topK, const BestPlanCallback& onBestSoFar)
{
    const auto start = std::chrono::steady_clock::now();
    settings.validate();
    // Before the task list: a wide batch range would otherwise fill the memory building it.
    requireBoundedSearch(settings);
    SearchResult result;
    const StrategySpace space = enumerateStrategies(settings);
    const std::vector<SearchTask> tasks = buildTasks(settings, space);
    progress.throwIfCancelled();
    checkProfilesCover(model, settings, space, tasks, progress);
    result.notes = searchNotes(settings, space, tasks);

    // Work units: tasks of one family (same per-layer costs) with the same layer candidates share
    // their knapsacks. Largest units first, so the last ones to finish are short.
    std::map<std::pair<FamilyKey, std::vector<int>>, std::size_t> unitIndex;
    std::vector<std::vector<int>> families;
    std::vector<double> unitWork;
    std::set<FamilyKey> familyKeys;
    for (const SearchTask& task : tasks) {
        if (task.index % 1024 == 0)
            progress.throwIfCancelled();
        const FamilyKey key = familyKey(task, settings.pipeline_type);
        familyKeys.insert(key);
        std::vector<int> layers = taskCandidates(task, space, settings).layers;
        const double work = double(layers.size()) * double(layers.size()) * settings.model.num_layers;
        auto unit = std::make_pair(key, std::move(layers));
        const auto it = unitIndex.find(unit);
        if (it == unitIndex.end()) {
            unitIndex.emplace(std::move(unit), families.size());
            families.push_back({ task.index });
            unitWork.push_back(work);
        } else {
            families[it->second].push_back(task.index);
        }
    }
    std::vector<std::size_t> order(families.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return unitWork[a] > unitWork[b]; });

    SearchContext context;
    context.model = &model;
    context.settings = &settings;
    context.space = &space;
    context.tasks = &tasks;
    context.budget = galvatron::memoryBudget(settings.memory_constraint_gb, settings.allocator_reserve_fraction);

    const int workers = std::max(1, std::min(effectiveThreads(threads), int(families.size())));
    std::vector<FamilySolver> solvers;
    solvers.reserve(std::size_t(workers));
    for (int w = 0; w < workers; ++w)
        solvers.emplace_back(context);
    std::vector<SolverStats> stats(static_cast<std::size_t>(workers));
    std::vector<TaskOutcome> outcomes(tasks.size());
    std::atomic<int> done { 0 };
    std::mutex progressMutex;
    double bestSoFar = 0; // throughput of the best finished task, and its index for ties
    int bestSoFarTask = -1;
    progress.report(0.0,
        "searching " + std::to_string(tasks.size()) + " tasks in " + std::to_string(families.size()) + " work units");

    parallelFor(int(families.size()), workers, [&](int worker, int item) {
        progress.throwIfCancelled();
        const std::vector<int>& family = families[order[std::size_t(item)]];
        solvers[std::size_t(worker)].solve(family, outcomes, progress, stats[std::size_t(worker)]);
        const SearchTask& task = tasks[std::size_t(family.front())];
        const std::lock_guard lock(progressMutex);
        // Counted under the lock: reports then leave in the order of their fractions.
        const int finished = done.fetch_add(1) + 1;
        if (onBestSoFar) {
            int improved = -1;
            for (int t : family) {
                const double throughput = outcomes[std::size_t(t)].throughput;
                if (throughput > 0
                    && (throughput > bestSoFar
                        || (throughput == bestSoFar && (bestSoFarTask < 0 || t < bestSoFarTask)))) {
                    bestSoFar = throughput;
                    bestSoFarTask = t;
                    improved = t;
                }
            }
            if (improved >= 0)
                onBestSoFar(
                    materializePlan(outcomes[std::size_t(improved)], tasks[std::size_t(improved)], space, settings));
        }
        progress.report(double(finished) / double(families.size()),
            "gbsz " + std::to_string(task.gbsz) + ", chunks " + std::to_string(task.chunks) + ", pp "
                + std::to_string(task.pp));
    });

    SolverStats total;
    for (const SolverStats& s : stats)
        total += s;
    const int best = bestTask(outcomes);
    if (best >= 0)
        result.best = materializePlan(outcomes[std::size_t(best)], tasks[std::size_t(best)], space, settings);
    std::vector<Plan> bests;
    for (int index : groupBestTasks(outcomes, tasks))
        bests.push_back(materializePlan(outcomes[std::size_t(index)], tasks[std::size_t(index)], space, settings));
    result.top = topPlans(bests, topK);
    result.pareto = paretoPlans(bests);
    result.tasks.reserve(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        TaskSummary summary;
        summary.task = tasks[i];
        summary.status = outcomes[i].status;
        summary.throughput_samples_per_s = outcomes[i].throughput;
        if (outcomes[i].status == TaskOutcome::Status::Feasible) {
            const TaskOutcome& outcome = outcomes[i];
            const galvatron::EmbeddingStrategy& embedding = space.embeddings[std::size_t(outcome.embedding)];
            summary.time_cost_s = outcome.time_cost_s;
            summary.memory_cost_mb_per_stage = outcome.memory_cost_mb_per_stage;
            summary.peak_memory_mb
                = *std::max_element(outcome.memory_cost_mb_per_stage.begin(), outcome.memory_cost_mb_per_stage.end());
            summary.vtp = embedding.tpsp();
            summary.vsp = embedding.sp > 1 ? 1 : 0;
            summary.embed_sdp = embedding.dp_type == galvatron::DpType::Zero3 ? 1 : 0;
        }
        result.tasks.push_back(summary);
    }
    result.stats.tasks = std::int64_t(tasks.size());
    result.stats.families = std::int64_t(familyKeys.size());
    result.stats.work_units = std::int64_t(families.size());
    result.stats.dp_calls = total.dp_runs;
    result.stats.dp_readouts = total.dp_readouts;
    result.stats.galvatron_dp_calls = total.galvatron_dp_calls;
    result.stats.dp_segments = total.dp_segments;
    result.stats.pruned_strategies = total.pruned_strategies;
    result.stats.threads = workers;
    result.stats.search_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.report(1.0, "search done");
    return result;
}

} // namespace stratex::galvatron
