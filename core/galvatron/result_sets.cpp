// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/result_sets.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace stratex::galvatron {

int bestTask(const std::vector<TaskOutcome>& outcomes)
{
    double best = -1;
    int winner = -1;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        if (outcomes[i].throughput > best) {
            best = outcomes[i].throughput;
            winner = int(i);
        }
    }
    return best > 0 ? winner : -1;
}

std::vector<int> groupBestTasks(const std::vector<TaskOutcome>& outcomes, const std::vector<SearchTask>& tasks)
{
    using Key = std::tuple<int, int, int, int>;
    std::map<Key, std::size_t> index;
    std::vector<int> bests;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        if (outcomes[i].status != TaskOutcome::Status::Feasible)
            continue;
        const SearchTask& task = tasks[i];
        const Key key { task.pp, int(task.mode), task.gbsz, task.chunks };
        const auto it = index.find(key);
        if (it == index.end()) {
            index.emplace(key, bests.size());
            bests.push_back(int(i));
        } else if (outcomes[i].throughput > outcomes[std::size_t(bests[it->second])].throughput) {
            bests[it->second] = int(i);
        }
    }
    std::sort(bests.begin(), bests.end());
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

} // namespace stratex::galvatron
