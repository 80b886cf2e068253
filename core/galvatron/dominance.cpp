// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/dominance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stratex::galvatron {

void Dominance::prepare(int strategies, const double* inter)
{
    const int S = strategies;
    m_strategies = S;
    m_delta.assign(std::size_t(S) * std::size_t(S), 0.0);
    for (int better = 0; better < S; ++better) {
        for (int worse = 0; worse < S; ++worse) {
            if (better == worse)
                continue;
            double in = 0;
            double out = 0;
            for (int other = 0; other < S; ++other) {
                if (other == worse)
                    continue;
                in = std::max(in, inter[other * S + better] - inter[other * S + worse]);
                out = std::max(out, inter[better * S + other] - inter[worse * S + other]);
            }
            m_delta[std::size_t(better * S + worse)] = in + out;
        }
    }
}

void Dominance::undominated(const int* weights, const double* intra, int layers, std::vector<int>& kept) const
{
    const int S = m_strategies;
    double largest = 0;
    for (int s = 0; s < S; ++s)
        largest = std::max(largest, std::abs(intra[s]));
    // Sums over a stage stay within layers * (largest layer time + largest transition); their
    // rounding error is far below this margin.
    const double margin = 1e-12 + 1e-12 * layers * (largest + 1.0);
    kept.clear();
    for (int s = 0; s < S; ++s) {
        bool dominated = false;
        for (int better = 0; better < S && !dominated; ++better) {
            if (better == s || weights[better] > weights[s])
                continue;
            dominated = intra[better] + m_delta[std::size_t(better * S + s)] + margin < intra[s];
        }
        if (!dominated)
            kept.push_back(s);
    }
}

} // namespace stratex::galvatron
