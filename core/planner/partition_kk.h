// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

namespace stratex::planner {

// Karmarkar-Karp largest differencing for k-way number partitioning (how DynaPipe spreads
// micro-batches over data-parallel groups by their time, docs/dynapipe-planner.md §2): every item
// starts as a k-tuple of bins holding only itself; the two tuples with the largest spread
// (max - min) are combined, pairing the largest bin of one with the smallest of the other, until
// one tuple remains. Deterministic: ties go to the lower item index. Returns the item indices
// of each bin, ascending (so each group keeps the DP's order); bins are ordered by their first
// item, empty bins last.
std::vector<std::vector<int>> partitionLargestDifferencing(const std::vector<double>& weights, int bins);

} // namespace stratex::planner
