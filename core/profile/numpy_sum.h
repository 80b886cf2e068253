// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <span>

namespace stratex::profile {

// The sum numpy's np.sum computes for a float64 array (numpy 1.24, the version Galvatron's
// baselines ran on): pairwise summation with eight accumulators for blocks of up to 128 values.
// Galvatron sums per-stage layer times and fits with np.sum; a plain loop differs in the last bits
// and can flip exact ties (docs/galvatron-search.md §0, §7.9).
double numpySum(std::span<const double> values);

} // namespace stratex::profile
