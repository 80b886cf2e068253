// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/plan_robustness.h"

#include <algorithm>
#include <numeric>

namespace stratex::megatron {

namespace {

double TimeScales::*const kComponents[]
    = { &TimeScales::compute, &TimeScales::tp, &TimeScales::cp, &TimeScales::ep, &TimeScales::dp, &TimeScales::pp };

// Rank of every plan (1 = fastest) under `scales`; ties share the better rank's order of the
// unperturbed list, so a tie never counts as a change.
std::vector<int> ranksUnder(const model::ModelDescription& model, const hardware::HardwareModel& hw,
    const std::vector<Estimate>& plans, const EstimateOptions& options, const std::vector<double>& factors)
{
    std::vector<double> times;
    for (std::size_t i = 0; i < plans.size(); ++i)
        times.push_back(estimate(model, plans[i].strategy, hw, options).iteration_ms
            * (i < factors.size() ? factors[i] : 1.0));
    std::vector<std::size_t> order(plans.size());
    std::iota(order.begin(), order.end(), 0);
    std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return times[a] < times[b]; });
    std::vector<int> ranks(plans.size());
    for (std::size_t r = 0; r < order.size(); ++r)
        ranks[order[r]] = int(r) + 1;
    return ranks;
}

} // namespace

std::vector<PlanRobustness> rankingRobustness(const model::ModelDescription& model, const hardware::HardwareModel& hw,
    const std::vector<Estimate>& plans, double memoryLimitMb, ProgressSink& progress,
    const std::vector<double>& rankFactors)
{
    std::vector<PlanRobustness> out(plans.size());
    for (std::size_t i = 0; i < plans.size(); ++i) {
        out[i].band_5 = out[i].band_10 = { int(i) + 1, int(i) + 1 };
    }
    const double bands[] = { 0.05, 0.10 };
    int done = 0;
    const int total = 2 * 2 * int(std::size(kComponents));
    for (const double band : bands) {
        for (double TimeScales::*component : kComponents) {
            for (const double sign : { -1.0, 1.0 }) {
                progress.throwIfCancelled();
                EstimateOptions options;
                options.memory_limit_mb = memoryLimitMb;
                options.scales.*component = 1 + sign * band;
                const std::vector<int> ranks = ranksUnder(model, hw, plans, options, rankFactors);
                for (std::size_t i = 0; i < plans.size(); ++i) {
                    // A band includes the smaller ones: the 10 % range covers the 5 % what-ifs.
                    for (RankRange* range : band == 0.05 ? std::vector<RankRange*> { &out[i].band_5, &out[i].band_10 }
                                                         : std::vector<RankRange*> { &out[i].band_10 }) {
                        range->best = std::min(range->best, ranks[i]);
                        range->worst = std::max(range->worst, ranks[i]);
                    }
                }
                progress.report(double(++done) / total, "what-ifs on the ranking");
            }
        }
    }
    for (PlanRobustness& r : out) {
        r.robust_5 = r.band_5.worst == 1;
        r.robust_10 = r.band_10.worst == 1;
    }
    return out;
}

} // namespace stratex::megatron
