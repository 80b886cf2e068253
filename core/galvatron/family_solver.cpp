// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/family_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

#include "core/galvatron/embedding_cost.h"
#include "core/galvatron/inter_layer_cost.h"
#include "core/galvatron/layer_memory.h"
#include "core/galvatron/layer_time.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/pipeline_cost.h"
#include "core/galvatron/dominance.h"

namespace stratex::galvatron {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The knapsack row a stage reads: the budget less embedding and buffer, either of which may be
// galvatron::kUnfitMb, so the difference is taken in 64 bits (a negative row reads as infeasible).
int rowLeft(int budgetMb, int embeddingMb, int bufferMb)
{
    return galvatron::saturatedMb(std::int64_t(budgetMb) - embeddingMb - bufferMb);
}

// Costs of the family's strategies, computed on first use.
struct FamilyCosts {
    std::vector<int> layerSlot; // space.layers index -> slot, -1 when not computed
    std::vector<double> sync;
    std::vector<double> noSync;
    std::vector<int> weights; // slot * weightStages + stage
    std::vector<int> embeddingSlot;
    std::vector<std::vector<double>> embeddingNoSync;
    std::vector<std::vector<int>> embeddingWeights;
    std::map<int, double> redistribution; // larger TP/SP degree -> cost
};

struct CandidateGroup {
    std::vector<int> layers; // indices into space.layers
    std::vector<int> tasks;
    std::vector<std::vector<int>> embeddings; // per task
};

} // namespace

struct FamilySolver::Readout {
    int row = 0;
    bool feasible = false;
    int remaining = -1;
    std::vector<int> plan; // candidate positions, one per layer of the stage
};

SolverStats& SolverStats::operator+=(const SolverStats& other)
{
    dp_runs += other.dp_runs;
    dp_readouts += other.dp_readouts;
    galvatron_dp_calls += other.galvatron_dp_calls;
    dp_segments += other.dp_segments;
    pruned_strategies += other.pruned_strategies;
    return *this;
}

FamilyKey familyKey(const SearchTask& task, galvatron::PipelineType pipeline)
{
    // Layer weights depend on the chunk count through the ZeRO ratios (1 or more) and, with GPipe,
    // through the in-flight micro-batches (all of them).
    const int chunkClass = pipeline == galvatron::PipelineType::GPipe ? task.chunks : (task.chunks == 1 ? 1 : 2);
    return { task.pp, task.microBatch(), chunkClass };
}

Plan materializePlan(
    const TaskOutcome& outcome, const SearchTask& task, const StrategySpace& space, const SearchSettings& settings)
{
    Plan plan;
    plan.gbsz = task.gbsz;
    plan.chunks = task.chunks;
    plan.pp = task.pp;
    plan.world = settings.world();
    plan.tp_sp_mode = task.mode;
    plan.global_buffer_tp = task.buffer_tp;
    plan.task_index = task.index;
    plan.time_cost_s = outcome.time_cost_s;
    plan.throughput_samples_per_s = outcome.throughput;
    plan.memory_cost_mb_per_stage = outcome.memory_cost_mb_per_stage;
    plan.memory_remaining_mb_per_stage = outcome.memory_remaining_mb_per_stage;
    plan.pp_division = evenDivision(settings.model.num_layers, task.pp);
    for (std::uint16_t index : outcome.layers)
        plan.layers.push_back(space.layers[index]);
    if (outcome.embedding >= 0)
        plan.embedding = space.embeddings[std::size_t(outcome.embedding)];
    plan.pipeline_type = settings.pipeline_type;
    plan.default_dp_type = settings.default_dp_type;
    return plan;
}

FamilySolver::FamilySolver(const SearchContext& context)
    : m_context(context)
{
}

void FamilySolver::solve(const std::vector<int>& taskIndices, std::vector<TaskOutcome>& outcomes,
    const ProgressSink& progress, SolverStats& stats)
{
    const galvatron::CostModel& model = *m_context.model;
    const SearchSettings& settings = *m_context.settings;
    const StrategySpace& space = *m_context.space;
    const std::vector<SearchTask>& tasks = *m_context.tasks;
    const SearchTask& representative = tasks[std::size_t(taskIndices.front())];
    const int gbsz = representative.gbsz;
    const int chunks = representative.chunks;
    const int pp = representative.pp;
    const int numLayers = settings.model.num_layers;
    const std::vector<int> division = evenDivision(numLayers, pp);
    const int budget = m_context.budget.dp_budget_mb;
    const int reserve = m_context.budget.reserve_mb;
    const bool gpipe = settings.pipeline_type == galvatron::PipelineType::GPipe;
    const int weightStages = gpipe ? 1 : pp;

    FamilyCosts costs;
    costs.layerSlot.assign(space.layers.size(), -1);
    costs.embeddingSlot.assign(space.embeddings.size(), -1);
    const auto layerSlot = [&](int index) {
        int& slot = costs.layerSlot[std::size_t(index)];
        if (slot < 0) {
            const galvatron::LayerStrategy& s = space.layers[std::size_t(index)];
            const galvatron::LayerTime time = galvatron::layerTime(model, s, gbsz, chunks);
            slot = int(costs.sync.size());
            costs.sync.push_back(time.sync_s);
            costs.noSync.push_back(time.no_sync_s);
            // GPipe builds the weights once with stage 0 and uses them for every stage (Q22).
            for (int stage = 0; stage < weightStages; ++stage)
                costs.weights.push_back(galvatron::layerMemory(model, s, gbsz, chunks, stage).weight_mb);
        }
        return slot;
    };
    const auto embeddingSlot = [&](int index) {
        int& slot = costs.embeddingSlot[std::size_t(index)];
        if (slot < 0) {
            const galvatron::EmbeddingStrategy& e = space.embeddings[std::size_t(index)];
            slot = int(costs.embeddingNoSync.size());
            costs.embeddingNoSync.push_back(galvatron::embeddingTime(model, e, gbsz, chunks).no_sync_s);
            costs.embeddingWeights.push_back(galvatron::embeddingMemory(model, e, gbsz, chunks).weight_mb);
        }
        return slot;
    };
    const auto redistribution = [&](int g) {
        const auto it = costs.redistribution.find(g);
        if (it != costs.redistribution.end())
            return it->second;
        const double value = galvatron::redistributionCost(model, g, pp, gbsz, chunks);
        costs.redistribution.emplace(g, value);
        return value;
    };

    // Megatron's global buffer, charged to every stage; Galvatron truncates it to whole MB.
    const auto bufferMbOf = [&](const SearchTask& task) {
        const bool buffer
            = settings.sequence_parallel && settings.global_memory_buffer && task.mode != TpSpMode::SpOnly;
        return buffer ? galvatron::truncatedMb(galvatron::globalBufferMb(model, task.gbsz, task.chunks, pp, task.buffer_tp)) : 0;
    };

    // Tasks of the family that filter to the same layer candidates share their knapsacks.
    std::vector<CandidateGroup> groups;
    for (int taskIndex : taskIndices) {
        TaskCandidates candidates = taskCandidates(tasks[std::size_t(taskIndex)], space, settings);
        CandidateGroup* group = nullptr;
        for (CandidateGroup& g : groups) {
            if (g.layers == candidates.layers)
                group = &g;
        }
        if (!group) {
            groups.push_back({ candidates.layers, {}, {} });
            group = &groups.back();
        }
        group->tasks.push_back(taskIndex);
        group->embeddings.push_back(std::move(candidates.embeddings));
    }

    std::vector<int> weights;
    std::vector<double> intra;
    std::vector<double> inter;
    std::vector<int> planSlots(static_cast<std::size_t>(numLayers));
    std::vector<double> planSync(static_cast<std::size_t>(numLayers));
    std::vector<double> planNoSync(static_cast<std::size_t>(numLayers));
    std::vector<int> bestSlots;
    std::vector<int> remaining(static_cast<std::size_t>(pp));
    std::vector<int> bestRemaining;
    std::vector<std::vector<Readout>> readouts(static_cast<std::size_t>(pp));
    std::vector<int> keptWeights;
    std::vector<double> keptIntra;
    std::vector<double> keptInter;
    Dominance dominance;
    if (m_kept.size() < std::size_t(pp))
        m_kept.resize(std::size_t(pp));

    for (const CandidateGroup& group : groups) {
        progress.throwIfCancelled();
        bool anyEmbedding = false;
        for (const auto& e : group.embeddings)
            anyEmbedding = anyEmbedding || !e.empty();
        if (group.layers.empty() || !anyEmbedding) {
            for (int taskIndex : group.tasks)
                outcomes[std::size_t(taskIndex)] = TaskOutcome {};
            continue;
        }
        const int S = int(group.layers.size());
        std::vector<int> slots;
        for (int index : group.layers)
            slots.push_back(layerSlot(index));
        std::vector<int> strategyOfSlot(costs.sync.size(), -1);
        for (std::size_t i = 0; i < costs.layerSlot.size(); ++i) {
            if (costs.layerSlot[i] >= 0)
                strategyOfSlot[std::size_t(costs.layerSlot[i])] = int(i);
        }
        intra.resize(std::size_t(S));
        for (int i = 0; i < S; ++i)
            intra[std::size_t(i)] = costs.sync[std::size_t(slots[std::size_t(i)])];
        inter.assign(std::size_t(S * S), 0.0);
        for (int a = 0; a < S; ++a) {
            const galvatron::LayerStrategy& former = space.layers[std::size_t(group.layers[std::size_t(a)])];
            for (int b = 0; b < S; ++b) {
                if (a == b)
                    continue;
                const galvatron::LayerStrategy& latter = space.layers[std::size_t(group.layers[std::size_t(b)])];
                inter[std::size_t(a * S + b)] = settings.sequence_parallel && former.tpsp() != latter.tpsp()
                    ? redistribution(std::max(former.tpsp(), latter.tpsp()))
                    : galvatron::tieBreakBias(former, latter);
            }
        }

        // The highest row any read-out of this group asks for, per stage: the budget less the
        // smallest embedding + buffer memory among the group's tasks and embedding candidates.
        std::vector<int> maxRow(static_cast<std::size_t>(pp), -1);
        for (std::size_t t = 0; t < group.tasks.size(); ++t) {
            const SearchTask& task = tasks[std::size_t(group.tasks[t])];
            const int bufferMb = bufferMbOf(task);
            for (int embeddingIndex : group.embeddings[t]) {
                const int eSlot = embeddingSlot(embeddingIndex);
                for (int stage = 0; stage < pp; ++stage) {
                    maxRow[std::size_t(stage)] = std::max(maxRow[std::size_t(stage)],
                        rowLeft(budget, costs.embeddingWeights[std::size_t(eSlot)][std::size_t(stage)], bufferMb));
                }
            }
        }

        // One knapsack per stage; with GPipe every stage has the same weights and the deepest
        // stage's table serves the others (layers are identical, so a shorter stage is a prefix).
        const int runs = gpipe ? 1 : pp;
        if (int(m_dps.size()) < runs)
            m_dps.resize(std::size_t(runs));
        std::vector<int> depths;
        if (gpipe) {
            depths = division;
            std::sort(depths.begin(), depths.end());
            depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
        }
        dominance.prepare(S, inter.data());
        for (int run = 0; run < runs; ++run) {
            weights.resize(std::size_t(S));
            for (int i = 0; i < S; ++i)
                weights[std::size_t(i)] = costs.weights[std::size_t(slots[std::size_t(i)] * weightStages + run)];
            // Drop strategies another one beats on time and memory whatever their neighbours.
            std::vector<int>& kept = m_kept[std::size_t(run)];
            const int layers = gpipe ? depths.back() : division[std::size_t(run)];
            dominance.undominated(weights.data(), intra.data(), layers, kept);
            const int K = int(kept.size());
            keptWeights.resize(std::size_t(K));
            keptIntra.resize(std::size_t(K));
            keptInter.resize(std::size_t(K * K));
            for (int i = 0; i < K; ++i) {
                keptWeights[std::size_t(i)] = weights[std::size_t(kept[std::size_t(i)])];
                keptIntra[std::size_t(i)] = intra[std::size_t(kept[std::size_t(i)])];
                for (int j = 0; j < K; ++j)
                    keptInter[std::size_t(i * K + j)]
                        = inter[std::size_t(kept[std::size_t(i)] * S + kept[std::size_t(j)])];
            }
            stats.pruned_strategies += S - K;
            StageDp::Problem problem;
            problem.budget_mb = budget;
            problem.layers = layers;
            problem.strategies = K;
            problem.weight_mb = keptWeights.data();
            problem.intra_s = keptIntra.data();
            problem.inter_s = keptInter.data();
            problem.max_row = gpipe ? *std::max_element(maxRow.begin(), maxRow.end()) : maxRow[std::size_t(run)];
            if (gpipe)
                problem.read_depths = depths;
            if (problem.max_row < 0) {
                problem.layers = 0; // nothing can fit: every read-out is infeasible
            }
            m_dps[std::size_t(run)].run(problem, &progress);
            stats.dp_runs += 1;
            stats.dp_segments += std::int64_t(m_dps[std::size_t(run)].segmentCount());
        }
        for (int stage = 0; stage < pp; ++stage)
            readouts[std::size_t(stage)].clear();

        const auto readStage = [&](int stage, int row) -> const Readout& {
            std::vector<Readout>& cache = readouts[std::size_t(stage)];
            for (const Readout& r : cache) {
                if (r.row == row)
                    return r;
            }
            Readout r;
            r.row = row;
            r.plan.assign(std::size_t(division[std::size_t(stage)]), 0);
            const int run = gpipe ? 0 : stage;
            const StageDp::Readout out = m_dps[std::size_t(run)].readout(row, division[std::size_t(stage)], r.plan);
            for (int& position : r.plan)
                position = m_kept[std::size_t(run)][std::size_t(position)];
            r.feasible = out.feasible;
            r.remaining = out.remaining_mb;
            stats.dp_readouts += 1;
            cache.push_back(std::move(r));
            return cache.back();
        };

        for (std::size_t t = 0; t < group.tasks.size(); ++t) {
            const SearchTask& task = tasks[std::size_t(group.tasks[t])];
            const std::vector<int>& embeddings = group.embeddings[t];
            TaskOutcome& outcome = outcomes[std::size_t(task.index)];
            outcome = TaskOutcome {};
            if (embeddings.empty())
                continue;
            const int bufferMb = bufferMbOf(task);
            double bestCost = kInfinity;
            int bestEmbedding = -1;
            for (int embeddingIndex : embeddings) {
                stats.galvatron_dp_calls += pp;
                const int eSlot = embeddingSlot(embeddingIndex);
                bool feasible = true;
                int first = 0;
                for (int stage = 0; stage < pp && feasible; ++stage) {
                    const Readout& r = readStage(stage,
                        rowLeft(budget, costs.embeddingWeights[std::size_t(eSlot)][std::size_t(stage)], bufferMb));
                    feasible = r.feasible;
                    if (!feasible)
                        break;
                    remaining[std::size_t(stage)] = r.remaining;
                    for (int i = 0; i < division[std::size_t(stage)]; ++i)
                        planSlots[std::size_t(first + i)] = slots[std::size_t(r.plan[std::size_t(i)])];
                    first += division[std::size_t(stage)];
                }
                if (!feasible)
                    continue;
                for (int layer = 0; layer < numLayers; ++layer) {
                    planSync[std::size_t(layer)] = costs.sync[std::size_t(planSlots[std::size_t(layer)])];
                    planNoSync[std::size_t(layer)] = costs.noSync[std::size_t(planSlots[std::size_t(layer)])];
                }
                const double cost = galvatron::pipelineCost(
                    planSync, planNoSync, division, costs.embeddingNoSync[std::size_t(eSlot)], task.chunks)
                                        .time_cost_s;
                if (bestCost > cost) {
                    bestCost = cost;
                    bestEmbedding = embeddingIndex;
                    bestSlots = planSlots;
                    bestRemaining = remaining;
                }
            }
            if (bestEmbedding < 0) {
                outcome.status = TaskOutcome::Status::Infeasible;
                outcome.throughput = 0.0;
                continue;
            }
            outcome.time_cost_s = bestCost;
            outcome.throughput = task.gbsz / bestCost;
            outcome.layers.clear();
            for (int slot : bestSlots)
                outcome.layers.push_back(std::uint16_t(strategyOfSlot[std::size_t(slot)]));
            outcome.embedding = bestEmbedding;
            outcome.memory_remaining_mb_per_stage = bestRemaining;
            outcome.memory_cost_mb_per_stage.clear();
            for (int left : bestRemaining)
                outcome.memory_cost_mb_per_stage.push_back(budget - left + reserve);
            outcome.status = TaskOutcome::Status::Feasible;
        }
    }
}

} // namespace stratex::galvatron
