// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/mode_pair.h"

#include <algorithm>

#include "core/common/number_format.h"
#include "core/planner/planner.h"

namespace stratex::planner {

namespace {

// Normal mode simulates many more candidates than fast mode, so it gets most of the bar.
constexpr double kNormalProgressShare = 0.85;

// Plans one mode, then again until planningTimeRepeats runs are timed; the first run's plan with
// the median time. The repeats share the end of the mode's progress range (cancel still works).
PlanResult timedPlan(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress, int& repeats)
{
    PlanResult first = planGlobalBatch(samples, model, config, progress);
    repeats = planningTimeRepeats(first.planning_time_ms);
    // Each run's three times together, so the reported parts come from the run whose whole time
    // is the median (the repeat counts are odd) and never exceed it.
    struct RunTimes {
        double planning_ms, microbatching_ms, scheduling_ms;
    };
    std::vector<RunTimes> runs { { first.planning_time_ms, first.microbatching_time_ms, first.scheduling_time_ms } };
    for (int run = 1; run < repeats; ++run) {
        progress.throwIfCancelled();
        SubProgress quiet(progress, 1.0, 1.0);
        const PlanResult again = planGlobalBatch(samples, model, config, quiet);
        runs.push_back({ again.planning_time_ms, again.microbatching_time_ms, again.scheduling_time_ms });
    }
    std::ranges::sort(runs, {}, &RunTimes::planning_ms);
    const RunTimes& median = runs[runs.size() / 2];
    first.planning_time_ms = median.planning_ms;
    first.microbatching_time_ms = median.microbatching_ms;
    first.scheduling_time_ms = median.scheduling_ms;
    return first;
}

} // namespace

int planningTimeRepeats(double firstRunMs)
{
    // Below 100 ms a run is as long as a scheduler's time slice on a loaded machine: 5 runs, the
    // median of which ignores two outliers; below 1 s 3 runs; above it one run's noise is small
    // against the run (and repeating it would keep the user waiting).
    if (firstRunMs < 100)
        return 5;
    if (firstRunMs < 1000)
        return 3;
    return 1;
}

double medianOf(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

ModeRecommendation recommendMode(const ModeFigures& normal, const ModeFigures& fast)
{
    ModeRecommendation out;
    out.normal_effective_ms = std::max(normal.makespan_ms, normal.planning_time_ms);
    out.fast_effective_ms = std::max(fast.makespan_ms, fast.planning_time_ms);
    if (!normal.feasible && !fast.feasible) {
        out.reason = "neither mode found a plan";
        return out;
    }
    out.decided = true;
    if (!normal.feasible || !fast.feasible) {
        out.mode = normal.feasible ? PlannerMode::Normal : PlannerMode::Fast;
        out.reason = std::string("only ") + (normal.feasible ? "normal" : "fast") + " mode found a plan";
        return out;
    }
    const bool normalHidden = normal.planning_time_ms <= normal.makespan_ms;
    if (out.fast_effective_ms <= out.normal_effective_ms) {
        out.mode = PlannerMode::Fast;
        out.reason = out.fast_effective_ms == out.normal_effective_ms
            ? "fast: the same iteration (" + fixed(out.fast_effective_ms, 1) + " ms) for less planning"
            : "fast: its iteration, " + fixed(out.fast_effective_ms, 1) + " ms, is shorter than normal's "
                + fixed(out.normal_effective_ms, 1) + " ms, whose planning (" + fixed(normal.planning_time_ms, 1)
                + " ms) outlasts its makespan";
        return out;
    }
    out.mode = PlannerMode::Normal;
    const double loss = normal.makespan_ms > 0 ? (fast.makespan_ms - normal.makespan_ms) / normal.makespan_ms * 100 : 0;
    out.reason = normalHidden
        ? "normal: its planning (" + fixed(normal.planning_time_ms, 1) + " ms) hides behind the "
            + fixed(normal.makespan_ms, 1) + " ms iteration, and fast's plan is " + fixed(loss, 2) + " % slower"
        : "normal: even with its planning (" + fixed(normal.planning_time_ms, 1) + " ms) its iteration, "
            + fixed(out.normal_effective_ms, 1) + " ms, beats fast's " + fixed(out.fast_effective_ms, 1) + " ms";
    return out;
}

ModeRecommendation recommendMode(const ModePair& pair)
{
    return recommendMode(ModeFigures { pair.normal.feasible, pair.normal.planning_time_ms, pair.normal.makespan_ms },
        ModeFigures { pair.fast.feasible, pair.fast.planning_time_ms, pair.fast.makespan_ms });
}

ModePair pairModes(PlanResult normal, PlanResult fast)
{
    ModePair pair;
    pair.normal = std::move(normal);
    pair.fast = std::move(fast);
    if (pair.fast.planning_time_ms > 0)
        pair.speedup = pair.normal.planning_time_ms / pair.fast.planning_time_ms;
    pair.comparable = pair.normal.feasible && pair.fast.feasible;
    if (pair.comparable && pair.normal.makespan_ms > 0) {
        pair.quality_loss_percent = (pair.fast.makespan_ms - pair.normal.makespan_ms) / pair.normal.makespan_ms * 100;
    }
    if (!pair.normal.feasible)
        pair.note = "normal: " + pair.normal.infeasible_reason;
    else if (!pair.fast.feasible)
        pair.note = "fast: " + pair.fast.infeasible_reason;
    return pair;
}

ModePair planBothModes(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress)
{
    PlannerConfig modeConfig = config;
    modeConfig.mode = PlannerMode::Normal;
    SubProgress normalProgress(progress, 0.0, kNormalProgressShare);
    int normalRepeats = 1;
    PlanResult normal = timedPlan(samples, model, modeConfig, normalProgress, normalRepeats);
    modeConfig.mode = PlannerMode::Fast;
    SubProgress fastProgress(progress, kNormalProgressShare, 1.0);
    int fastRepeats = 1;
    PlanResult fast = timedPlan(samples, model, modeConfig, fastProgress, fastRepeats);
    ModePair pair = pairModes(std::move(normal), std::move(fast));
    pair.normal_timing_runs = normalRepeats;
    pair.fast_timing_runs = fastRepeats;
    return pair;
}

} // namespace stratex::planner
