// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace stratex::planner {

// DynaPipe's micro-batch orders to try (dynapipe-planner.md §3 "Permutation search"): with m
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

} // namespace stratex::planner
