// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/search_work_estimate.h"

#include <algorithm>
#include <vector>

#include "core/common/work_limits.h"
#include "core/megatron/strategy_search_space.h"

namespace stratex::megatron {

namespace {

// Simulations of each kept plan: once in the search's second pass, 24 times in the ranking's
// what-ifs (plan_robustness.cpp: bands {5, 10} % x 6 time components x 2 signs).
constexpr double kSimulationsPerKeptPlan = 1 + 2 * 6 * 2;

} // namespace

WorkEstimate estimateStratexSearchWork(const StrategySearchRequest& request)
{
    // Walked, not built: the space can hold millions of candidates (strategy_search_space.h).
    const SearchSpace space(request);
    std::vector<long long> steps;
    steps.reserve(space.total());
    for (std::size_t k = 0; k < space.shapes().size(); ++k)
        space.forEach(k, [&](const ParallelStrategy& s) { steps.push_back(pipelineWork(s)); });
    double median = 0;
    if (!steps.empty()) {
        const auto middle = steps.begin() + std::ptrdiff_t(steps.size() / 2);
        std::nth_element(steps.begin(), middle, steps.end());
        median = double(*middle);
    }
    const double kept = std::min<double>(std::max(1, request.top), double(steps.size()));
    WorkEstimate estimate;
    estimate.job = "search";
    estimate.size = "about " + groupedCount(double(steps.size())) + " strategies of global batch "
        + groupedCount(request.global_batch_size) + ", about " + groupedCount(median)
        + " pipeline steps per simulation (micro-batches x pp x vpp), about " + groupedCount(kept * kSimulationsPerKeptPlan)
        + " simulations";
    estimate.work = kept * kSimulationsPerKeptPlan * median;
    estimate.budget = limits::kMaxStratexSearchWork;
    return estimate;
}

void requireBoundedStratexSearch(const StrategySearchRequest& request, bool lifted)
{
    requireWithinBudget(estimateStratexSearchWork(request),
        "Search a smaller --global-batch-size (or a larger --max-micro-batch-size, fewer plans with --top), or run "
        "it anyway with "
            + std::string(kLiftWorkBudgetFlag) + " (the GUI asks).",
        lifted);
}

} // namespace stratex::megatron
