// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/search/result_sets.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace stratex::search {

std::optional<Plan> bestPlan(const std::vector<TaskOutcome>& outcomes)
{
    double best = -1;
    const TaskOutcome* winner = nullptr;
    for (const TaskOutcome& outcome : outcomes) {
        if (outcome.throughput > best) {
            best = outcome.throughput;
            winner = &outcome;
        }
    }
    if (!winner || !(best > 0))
        return std::nullopt;
    return winner->plan;
}

std::vector<Plan> groupBests(const std::vector<TaskOutcome>& outcomes)
{
    using Key = std::tuple<int, int, int, int>;
    std::map<Key, std::size_t> index;
    std::vector<Plan> bests;
    for (const TaskOutcome& outcome : outcomes) {
        if (outcome.status != TaskOutcome::Status::Feasible)
            continue;
        const Plan& plan = outcome.plan;
        const Key key { plan.pp, int(plan.tp_sp_mode), plan.gbsz, plan.chunks };
        const auto it = index.find(key);
        if (it == index.end()) {
            index.emplace(key, bests.size());
            bests.push_back(plan);
        } else if (plan.throughput_samples_per_s > bests[it->second].throughput_samples_per_s) {
            bests[it->second] = plan;
        }
    }
    std::sort(bests.begin(), bests.end(), [](const Plan& a, const Plan& b) { return a.task_index < b.task_index; });
    return bests;
}

std::vector<Plan> topPlans(const std::vector<Plan>& candidates, int k)
{
    std::vector<Plan> sorted = candidates;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Plan& a, const Plan& b) {
        if (a.throughput_samples_per_s != b.throughput_samples_per_s)
            return a.throughput_samples_per_s > b.throughput_samples_per_s;
        return a.task_index < b.task_index;
    });
    if (k >= 0 && int(sorted.size()) > k)
        sorted.resize(std::size_t(k));
    return sorted;
}

std::vector<Plan> paretoPlans(const std::vector<Plan>& candidates)
{
    // Sweep by peak memory ascending (throughput descending, task order on ties): a plan is on
    // the front when it is faster than everything using no more memory.
    std::vector<Plan> sorted = candidates;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Plan& a, const Plan& b) {
        if (a.peakMemoryMb() != b.peakMemoryMb())
            return a.peakMemoryMb() < b.peakMemoryMb();
        if (a.throughput_samples_per_s != b.throughput_samples_per_s)
            return a.throughput_samples_per_s > b.throughput_samples_per_s;
        return a.task_index < b.task_index;
    });
    std::vector<Plan> front;
    double bestThroughput = -1;
    for (const Plan& plan : sorted) {
        if (plan.throughput_samples_per_s > bestThroughput) {
            front.push_back(plan);
            bestThroughput = plan.throughput_samples_per_s;
        }
    }
    return front;
}

} // namespace stratex::search
