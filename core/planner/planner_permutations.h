// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace stratex::planner {

// DynaPipe's micro-batch orders to try (docs/dynapipe-planner.md §3 "Permutation search"): with m
// micro-batches and k = 4 clusters (3 when m > 20), k-means on the per-micro-batch features;
// for each of the k! orders of the clusters, the members of each cluster shuffled and
// concatenated; then the identity order. With m <= k, all m! orders. Unlike DynaPipe the
// shuffles come from PlannerRng(seed), so the set is reproducible. Duplicates are dropped (first
// occurrence kept). Returns orders of `ids`.
struct PermutationOptions {
    int clusters_small = 4; // k for m <= small_batch_limit
    int clusters_large = 3;
    int small_batch_limit = 20;
};

std::vector<std::vector<int>> microbatchPermutations(const std::vector<int>& ids,
    const std::vector<std::vector<double>>& features, std::uint64_t seed, const PermutationOptions& options = {});

// Warm-up orders derived from `order`: for q = 1..max_head (at most m - 1), the q lightest
// micro-batches (`lightest_first`: all ids by ascending work) at the head, lightest first, the
// others in `order`'s order. The pipeline fills and reaches its steady state behind the first
// micro-batches' forwards, so a light head shortens the fill bubble; k-means shuffles leave the
// lightest micro-batches anywhere in their cluster. Orders equal to `order` or to an earlier one
// are dropped.
std::vector<std::vector<int>> warmupOrders(
    const std::vector<int>& order, const std::vector<int>& lightest_first, int max_head);

} // namespace stratex::planner
