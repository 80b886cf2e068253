// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/common/error.h"
#include "core/planner/planner_permutations.h"
#include "core/planner/recompute_adjust.h"
#include "core/planner/recompute_preplan.h"
#include "core/sim/schedule_assignment.h"

namespace stratex::planner {

namespace {

constexpr double kUsPerMs = 1000;

bool throttleable(sim::ScheduleKind schedule)
{
    return schedule == sim::ScheduleKind::Cyclic || schedule == sim::ScheduleKind::WaitFreeCyclic;
}

// One evaluated (schedule, recompute, order) with the plan it ended with.
struct Evaluation {
    bool fits = false;
    bool feasible = false; // the simulation completed (a starved cyclic pass does not)
    double makespan_us = std::numeric_limits<double>::infinity();
    double max_peak_mb = std::numeric_limits<double>::infinity();
    sim::ScheduleKind schedule = sim::ScheduleKind::WaitFreeCyclic;
    RecomputeType base = RecomputeType::None;
    std::vector<int> order;
    RecomputePlan plan;
    bool throttled = false;
    int rounds = 0;
    bool pruned = false; // stopped: its lower bound reached the best makespan found
};

class GroupSearch {
public:
    GroupSearch(const GroupSearchInput& input, ProgressSink& progress)
        : m_input(input)
        , m_progress(progress)
        , m_builder(*input.model, input.pipeline, input.microbatches,
              SpecOptions { input.config.tp, OptimizerStateConfig { input.config.zero_stage, input.config.dp_size },
                  input.config.hidden_size, input.config.comm })
        , m_limit(input.config.device_memory_mb)
    {
        for (const MicroBatch& mb : input.microbatches)
            m_ids.push_back(mb.id);
    }

    GroupPlan run();

private:
    // One pass over candidates x permutations under `limits`, updating m_best and m_closest.
    // `progressFrom`..`progressTo` is its share of the progress bar.
    void runPass(const SearchLimits& limits, double progressFrom, double progressTo);
    std::vector<std::vector<double>> features(const RecomputePlan& plan) const;
    // The micro-batch ids by ascending compute under the plan.
    std::vector<int> lightestFirst(const RecomputePlan& plan) const;
    std::optional<RecomputePlan> startingPlan(RecomputeType base) const;
    Evaluation evaluate(const SearchLimits& limits, sim::ScheduleKind schedule, RecomputeType base,
        const RecomputePlan& start, const std::vector<int>& order);
    Evaluation evaluatePermutation(const SearchLimits& limits, sim::ScheduleKind schedule, RecomputeType base,
        const RecomputePlan& floor, const std::vector<int>& order);
    sim::SimulationResult simulateOnce(sim::ScheduleKind schedule, RecomputeType base, const std::vector<int>& order,
        const RecomputePlan& plan, bool throttled, bool timeline);
    int roundBudget(const SearchLimits& limits) const;
    // True when no plan raised from `plan` can beat the best so far.
    bool beaten(const SearchLimits& limits, sim::ScheduleKind schedule, const RecomputePlan& plan) const;
    GroupPlan finish(const Evaluation& chosen, bool fits);

    const GroupSearchInput& m_input;
    ProgressSink& m_progress;
    MicroBatchSpecBuilder m_builder;
    double m_limit;
    std::vector<int> m_ids;
    std::optional<Evaluation> m_best; // fastest that fits
    std::optional<Evaluation> m_closest; // lowest peak, for the report when nothing fits
    int m_simulations = 0;
    int m_permutations = 0;
    int m_candidates = 0;
    int m_pruned = 0;
};

std::vector<std::vector<double>> GroupSearch::features(const RecomputePlan& plan) const
{
    // DynaPipe clusters micro-batches by [fw(first layer), fw(last), bw(first), bw(last)].
    std::vector<std::vector<double>> rows;
    for (int id : m_ids) {
        const sim::MicrobatchSpec spec = m_builder.spec(id, plan);
        rows.push_back({ spec.layers.front().fw_us, spec.layers.back().fw_us, spec.layers.front().bw_us,
            spec.layers.back().bw_us });
    }
    return rows;
}

bool GroupSearch::beaten(const SearchLimits& limits, sim::ScheduleKind schedule, const RecomputePlan& plan) const
{
    if (!limits.prune_by_bound || !m_best)
        return false;
    return m_builder.makespanLowerBoundUs(plan, sim::splitsBackward(schedule)) >= m_best->makespan_us;
}

int GroupSearch::roundBudget(const SearchLimits& limits) const
{
    if (limits.max_adjust_rounds > 0)
        return limits.max_adjust_rounds;
    // Until convergence: every round raises at least one (micro-batch, device) pair by at least
    // one level, so there can be no more rounds than twice the pairs.
    return 2 * static_cast<int>(m_ids.size()) * m_builder.deviceCount() + 1;
}

sim::SimulationResult GroupSearch::simulateOnce(sim::ScheduleKind schedule, RecomputeType base,
    const std::vector<int>& order, const RecomputePlan& plan, bool throttled, bool timeline)
{
    m_progress.throwIfCancelled();
    sim::SimulationOptions options;
    options.memory_limit_mb = throttled ? m_limit : 0;
    options.build_timeline = timeline;
    ++m_simulations;
    return sim::simulate(m_builder.input(order, plan, base), schedule, options);
}

std::optional<RecomputePlan> GroupSearch::startingPlan(RecomputeType base) const
{
    // The uniform type, raised where a micro-batch cannot even run alone on a device under it (or
    // the cost model cannot price it): no schedule could fit such a pair, so no simulation is
    // spent discovering that. Without any usable type for some micro-batch the candidate is void.
    RecomputePlan plan(m_ids, m_builder.deviceCount(), base);
    for (int id : m_ids) {
        for (int device = 0; device < m_builder.deviceCount(); ++device) {
            std::optional<RecomputeType> type = base;
            std::optional<RecomputeType> usable;
            while (type) {
                if (m_builder.available(id, *type)) {
                    usable = type;
                    if (m_builder.alonePeakMb(id, *type, device, base) <= m_limit)
                        break;
                }
                type = strongerRecompute(*type);
            }
            if (!usable)
                return std::nullopt;
            plan.set(id, device, type ? *type : *usable);
        }
    }
    return plan;
}

Evaluation GroupSearch::evaluate(const SearchLimits& limits, sim::ScheduleKind schedule, RecomputeType base,
    const RecomputePlan& start, const std::vector<int>& order)
{
    Evaluation eval;
    eval.schedule = schedule;
    eval.base = base;
    eval.order = order;
    eval.plan = start;
    const int budget = roundBudget(limits);
    RecomputeAdjustOptions adjust;
    adjust.memory_limit_mb = m_limit;
    adjust.microbatches_per_device = limits.microbatches_per_device;
    adjust.max_microbatches_per_round = limits.max_microbatches_per_round;
    adjust.cover_overflow = limits.cover_overflow;
    const auto available = [this](int id, RecomputeType type) { return m_builder.available(id, type); };
    const auto saving = [this](int id, int device, RecomputeType from, RecomputeType to) {
        return m_builder.footprint(id, from, device).stored_mb - m_builder.footprint(id, to, device).stored_mb;
    };

    auto record = [&](const sim::SimulationResult& result, bool throttled) {
        eval.feasible = result.feasible;
        eval.throttled = throttled;
        eval.makespan_us = result.makespan_us;
        eval.max_peak_mb = result.maxPeakMemoryMb();
        eval.fits = result.feasible && eval.max_peak_mb <= m_limit;
    };

    // Phase 1: unthrottled; adjust recompute while the plan overflows. Phase 2 (cyclic
    // schedules): DynaPipe's memory retry, the cyclic pass throttled to the device memory, still
    // adjusting with what is left of the round budget.
    for (const bool throttled : { false, true }) {
        if (throttled && !throttleable(schedule))
            break;
        // Most starting plans fit at once, so the first run skips the timeline the adjustment
        // reads; once a plan has overflowed, the following runs build it right away.
        bool expectOverflow = false;
        while (true) {
            if (beaten(limits, schedule, eval.plan)) {
                eval.pruned = true;
                eval.fits = false;
                eval.feasible = false;
                return eval;
            }
            const bool canAdjust = eval.rounds < budget && eval.plan.countDifferentFrom(RecomputeType::Full) > 0;
            sim::SimulationResult result
                = simulateOnce(schedule, base, order, eval.plan, throttled, expectOverflow && canAdjust);
            record(result, throttled);
            if (eval.fits)
                return eval;
            // Raising recompute only lengthens ops, and with the op orders fixed a longer op delays,
            // never advances, the others: an overflowing plan already as slow as the best cannot
            // lead to a better one (the throttled pass only adds delays on top).
            if (limits.prune_by_bound && m_best && result.feasible && result.makespan_us >= m_best->makespan_us) {
                eval.pruned = true;
                eval.fits = false;
                eval.feasible = false;
                return eval;
            }
            if (!canAdjust)
                break;
            expectOverflow = true;
            if (result.timeline.devices.empty())
                result = simulateOnce(schedule, base, order, eval.plan, throttled, true);
            if (result.timeline.devices.empty())
                break;
            const auto changes = adjustRecomputePlan(
                eval.plan, result.timeline, result.peak_memory_mb_per_device, adjust, available, saving);
            if (changes.empty())
                break;
            ++eval.rounds;
        }
    }
    return eval;
}

Evaluation GroupSearch::evaluatePermutation(const SearchLimits& limits, sim::ScheduleKind schedule, RecomputeType base,
    const RecomputePlan& floor, const std::vector<int>& order)
{
    const std::optional<PreplanResult> fitted = memoryFittedPlan(m_builder, order, floor, schedule, m_limit, base);
    // Without a window model (interleaved placements, other schedules) the plain start is all
    // there is; an unchanged fitted plan is the plain start too.
    if (!fitted || fitted->raised == 0)
        return evaluate(limits, schedule, base, floor, order);
    Evaluation eval = evaluate(limits, schedule, base, fitted->plan, order);
    if (limits.plain_start) {
        Evaluation plain = evaluate(limits, schedule, base, floor, order);
        if (plain.fits && (!eval.fits || plain.makespan_us < eval.makespan_us))
            eval = std::move(plain);
    }
    return eval;
}

void GroupSearch::runPass(const SearchLimits& limits, double progressFrom, double progressTo)
{
    const std::vector<sim::ScheduleKind> schedules
        = candidateSchedules(m_input.pipeline, m_input.config.schedules, limits);
    // Weakest first: in fast mode the stronger types are only fallbacks.
    const std::vector<RecomputeType> types = m_input.model->recomputeTypes(m_input.config.tp);
    const double totalCandidates = double(schedules.size() * types.size());
    const double span = progressTo - progressFrom;
    int candidateIndex = 0;
    for (sim::ScheduleKind schedule : schedules) {
        // DualPipeV needs two micro-batches per device and direction (DualPipe's assert); with
        // fewer it is no candidate.
        if (schedule == sim::ScheduleKind::DualPipeV
            && static_cast<int>(m_ids.size()) < 2 * m_input.pipeline.num_stages) {
            candidateIndex += static_cast<int>(types.size());
            continue;
        }
        for (RecomputeType type : types) {
            const double begin = candidateIndex / totalCandidates;
            ++candidateIndex;
            // Fallback types (fast mode) are only tried while nothing fits.
            if (!limits.all_recompute_types && type != types.front() && m_best)
                break;
            const std::optional<RecomputePlan> start = startingPlan(type);
            if (!start)
                continue;
            ++m_candidates;
            // Every permutation starts from this plan or above it: one bound skips them all.
            if (beaten(limits, schedule, *start)) {
                ++m_pruned;
                continue;
            }
            const auto orders = microbatchPermutations(m_ids, features(*start), m_input.config.seed);
            double candidateBestUs = std::numeric_limits<double>::infinity();
            std::vector<int> candidateBestOrder; // empty until an order fits
            auto consider = [&](const std::vector<int>& order) {
                Evaluation eval = evaluatePermutation(limits, schedule, type, *start, order);
                ++m_permutations;
                if (eval.pruned)
                    ++m_pruned;
                if (eval.fits && eval.makespan_us < candidateBestUs) {
                    candidateBestUs = eval.makespan_us;
                    candidateBestOrder = order;
                }
                if (eval.fits && (!m_best || eval.makespan_us < m_best->makespan_us))
                    m_best = eval;
                if (eval.feasible && (!m_closest || eval.max_peak_mb < m_closest->max_peak_mb))
                    m_closest = std::move(eval);
            };
            const std::string activity = std::string("simulating ") + std::string(sim::scheduleName(schedule))
                + ", recompute " + std::string(recomputeTypeName(type));
            for (std::size_t k = 0; k < orders.size(); ++k) {
                m_progress.report(
                    progressFrom + span * (begin + (double(k) / orders.size()) / totalCandidates), activity);
                consider(orders[k]);
            }
            if (limits.warmup_orders && !candidateBestOrder.empty()) {
                const std::vector<int> best = candidateBestOrder; // consider() may replace it
                for (const std::vector<int>& order : warmupOrders(best, lightestFirst(*start), m_builder.deviceCount()))
                    consider(order);
            }
        }
    }
}

std::vector<int> GroupSearch::lightestFirst(const RecomputePlan& plan) const
{
    // A micro-batch's work: its compute on every device (forward and backward of each layer,
    // the LM head included) under the plan. Ties keep the DP order (stable).
    std::vector<double> work;
    for (int id : m_ids) {
        double total = 0;
        for (int device = 0; device < m_builder.deviceCount(); ++device)
            total += m_builder.footprint(id, plan.at(id, device), device).compute_us;
        work.push_back(total);
    }
    std::vector<std::size_t> index(m_ids.size());
    for (std::size_t i = 0; i < index.size(); ++i)
        index[i] = i;
    std::stable_sort(index.begin(), index.end(), [&](std::size_t x, std::size_t y) { return work[x] < work[y]; });
    std::vector<int> ids;
    for (std::size_t i : index)
        ids.push_back(m_ids[i]);
    return ids;
}

GroupPlan GroupSearch::run()
{
    // Normal mode: fast mode's search first (a small share of the work), then its own, which
    // replaces the plan only with a strictly faster one and stops candidates that cannot be.
    constexpr double kFastShare = 0.1;
    const bool withFast = m_input.limits.include_fast_search;
    if (withFast) {
        SearchLimits fast = searchLimits(PlannerMode::Fast);
        fast.prune_by_bound = m_input.limits.prune_by_bound;
        runPass(fast, 0.0, kFastShare);
    }
    runPass(m_input.limits, withFast ? kFastShare : 0.0, 1.0);
    if (m_best)
        return finish(*m_best, true);
    if (m_closest)
        return finish(*m_closest, false);
    GroupPlan plan;
    plan.dp_group = m_input.dp_group;
    plan.infeasible_reason = "no schedule candidate could be simulated: the cost model cannot price these "
                             "micro-batches under any recompute type";
    plan.schedule_candidates = m_candidates;
    plan.simulations = m_simulations;
    plan.pruned = m_pruned;
    return plan;
}

GroupPlan GroupSearch::finish(const Evaluation& chosen, bool fits)
{
    GroupPlan plan;
    plan.dp_group = m_input.dp_group;
    plan.feasible = fits;
    plan.schedule = chosen.schedule;
    plan.base_recompute = chosen.base;
    plan.recompute = chosen.plan;
    plan.memory_throttled = chosen.throttled;
    plan.adjust_rounds = chosen.rounds;
    plan.input = m_builder.input(chosen.order, chosen.plan, chosen.base);
    sim::SimulationOptions options;
    options.memory_limit_mb = chosen.throttled ? m_limit : 0;
    options.build_timeline = true;
    plan.simulation = sim::simulate(plan.input, chosen.schedule, options);
    ++m_simulations;
    plan.makespan_ms = plan.simulation.makespan_us / kUsPerMs;
    plan.peak_memory_mb_per_device = plan.simulation.peak_memory_mb_per_device;
    for (int id : chosen.order) {
        const auto it = std::find_if(m_input.microbatches.begin(), m_input.microbatches.end(),
            [id](const MicroBatch& mb) { return mb.id == id; });
        plan.microbatches.push_back({ *it, chosen.plan.ofMicrobatch(id) });
    }
    if (!fits) {
        plan.infeasible_reason = "no plan fits in " + std::to_string(static_cast<long long>(m_limit))
            + " MB per device; the lowest peak found is "
            + std::to_string(static_cast<long long>(std::ceil(chosen.max_peak_mb))) + " MB ("
            + std::string(sim::scheduleName(chosen.schedule)) + ", recompute from "
            + std::string(recomputeTypeName(chosen.base)) + ")";
    }
    if (m_input.config.build_instructions && plan.simulation.feasible) {
        plan.instructions = sim::buildInstructions(plan.simulation, plan.input);
        plan.deadlock = sim::checkDeadlockFree(plan.instructions);
    }
    plan.schedule_candidates = m_candidates;
    plan.permutations_tried = m_permutations;
    plan.simulations = m_simulations;
    plan.pruned = m_pruned;
    return plan;
}

} // namespace

std::vector<sim::ScheduleKind> candidateSchedules(
    const PipelineModel& pipeline, const std::vector<sim::ScheduleKind>& configured, const SearchLimits& limits)
{
    const sim::PipelineLayout layout = sim::analyzeAssignment(pipeline.device_assignment);
    std::vector<sim::ScheduleKind> schedules = configured.empty() ? sim::plannerSchedules(layout) : configured;
    // Beyond DynaPipe's set: ZB-H1 on a linear placement (its weight-gradient ops fill the
    // cool-down bubbles at 1F1B's activation memory, checked against the limit like the others).
    if (configured.empty() && layout.kind == sim::AssignmentKind::Linear && layout.n_devices > 1)
        schedules.push_back(sim::ScheduleKind::ZbH1);
    // On a V placement: ZB-V and DualPipeV (B/W split both), checked like the others.
    if (configured.empty() && sim::isVShape(layout)) {
        schedules.push_back(sim::ScheduleKind::ZbV);
        schedules.push_back(sim::ScheduleKind::DualPipeV);
    }
    for (sim::ScheduleKind schedule : schedules) {
        const std::string reason = sim::scheduleInvalidReason(layout, schedule);
        if (!reason.empty())
            throw Error(reason);
    }
    if (!limits.all_schedules && !schedules.empty()) {
        const bool hasWaitFree
            = std::find(schedules.begin(), schedules.end(), sim::ScheduleKind::WaitFreeCyclic) != schedules.end();
        return { hasWaitFree ? sim::ScheduleKind::WaitFreeCyclic : schedules.front() };
    }
    return schedules;
}

GroupPlan searchGroupPlan(const GroupSearchInput& input, ProgressSink& progress)
{
    if (!input.model)
        throw Error("schedule search without a cost model");
    if (input.microbatches.empty())
        throw Error("schedule search without micro-batches");
    GroupSearch search(input, progress);
    return search.run();
}

} // namespace stratex::planner
