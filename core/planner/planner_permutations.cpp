// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_permutations.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/common/error.h"
#include "core/planner/kmeans.h"
#include "core/planner/planner_rng.h"

namespace stratex::planner {

std::vector<std::vector<int>> microbatchPermutations(const std::vector<int>& ids,
    const std::vector<std::vector<double>>& features, std::uint64_t seed, const PermutationOptions& options)
{
    if (features.size() != ids.size())
        throw Error("permutations: one feature row per micro-batch is needed");
    const int m = static_cast<int>(ids.size());
    const int k = m <= options.small_batch_limit ? options.clusters_small : options.clusters_large;
    std::vector<std::vector<int>> orders;
    std::set<std::vector<int>> seen;
    auto add = [&](std::vector<int> order) {
        if (seen.insert(order).second)
            orders.push_back(std::move(order));
    };

    if (m <= k) {
        std::vector<int> order = ids;
        std::sort(order.begin(), order.end());
        do {
            add(order);
        } while (std::next_permutation(order.begin(), order.end()));
        add(ids);
        return orders;
    }

    const KMeansResult clusters = kmeans(features, k, seed);
    std::vector<std::vector<int>> members(static_cast<std::size_t>(clusters.cluster_count));
    for (std::size_t i = 0; i < ids.size(); ++i)
        members[static_cast<std::size_t>(clusters.label[i])].push_back(ids[i]);
    std::vector<int> clusterOrder(static_cast<std::size_t>(clusters.cluster_count));
    std::iota(clusterOrder.begin(), clusterOrder.end(), 0);
    PlannerRng rng(seed ^ 0x5DEECE66DULL); // the shuffles' own stream
    do {
        std::vector<int> order;
        order.reserve(ids.size());
        for (int c : clusterOrder) {
            std::vector<int> shuffled = members[static_cast<std::size_t>(c)];
            rng.shuffle(shuffled);
            order.insert(order.end(), shuffled.begin(), shuffled.end());
        }
        add(std::move(order));
    } while (std::next_permutation(clusterOrder.begin(), clusterOrder.end()));
    add(ids);
    return orders;
}

std::vector<std::vector<int>> warmupOrders(
    const std::vector<int>& order, const std::vector<int>& lightest_first, int max_head)
{
    if (lightest_first.size() != order.size())
        throw Error("warm-up orders: the lightest-first list must hold every micro-batch once");
    const int m = static_cast<int>(order.size());
    const int heads = std::min(max_head, m - 1);
    std::vector<std::vector<int>> orders;
    std::set<std::vector<int>> seen { order };
    for (int q = 1; q <= heads; ++q) {
        const std::set<int> head(lightest_first.begin(), lightest_first.begin() + q);
        std::vector<int> warm(lightest_first.begin(), lightest_first.begin() + q);
        warm.reserve(order.size());
        for (int id : order) {
            if (!head.count(id))
                warm.push_back(id);
        }
        if (warm.size() != order.size())
            throw Error("warm-up orders: the lightest-first list must hold every micro-batch once");
        if (seen.insert(warm).second)
            orders.push_back(std::move(warm));
    }
    return orders;
}

} // namespace stratex::planner
