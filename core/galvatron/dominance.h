// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

namespace stratex::galvatron {

// Exact pruning for the stage knapsack. Strategy s' dominates s when it needs no more memory
// (w[s'] <= w[s]) and is faster by more than anything the transitions could give back:
//   intra[s'] + Δin(s', s) + Δout(s', s) + margin < intra[s],
// with Δin = max(0, max_a inter[a][s'] - inter[a][s]) and Δout = max(0, max_b inter[s'][b] - inter[s][b])
// (a, b != s). Putting s' wherever a plan has s then gives a plan that fits in the same memory and
// is strictly cheaper, so s is never the minimum of any knapsack cell, never the argmin, and
// removing it changes no value, no tie-break (the relative order of the others is kept) and no
// plan. The margin covers floating-point rounding of sums over `layers` layers.
class Dominance {
public:
    // inter: [S * S], row former, column latter.
    void prepare(int strategies, const double* inter);

    // Indices (ascending) of the strategies no other one dominates under these weights.
    void undominated(const int* weights, const double* intra, int layers, std::vector<int>& kept) const;

private:
    int m_strategies = 0;
    std::vector<double> m_delta; // [better * S + worse]: Δin + Δout
};

} // namespace stratex::galvatron
