// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/pipeline_cost.h"

#include <algorithm>

#include "core/profile/numpy_sum.h"

namespace stratex::galvatron {

namespace {

// Python's max(a, b): the first one unless the second is greater.
double pyMax(double a, double b)
{
    return b > a ? b : a;
}

} // namespace

PipelineCost pipelineCost(std::span<const double> layerSync, std::span<const double> layerNoSync,
    std::span<const int> division, std::span<const double> embeddingNoSync, int chunks)
{
    using profile::numpySum;
    PipelineCost result;
    const int pp = int(division.size());
    std::size_t start = 0;
    for (int i = 0; i < pp; ++i) {
        const std::size_t n = std::size_t(division[std::size_t(i)]);
        result.stage_sync_s.push_back(numpySum(layerSync.subspan(start, n)));
        result.stage_no_sync_s.push_back(numpySum(layerNoSync.subspan(start, n)));
        start += n;
    }
    std::vector<double>& c = result.stage_no_sync_s;
    for (int i = 0; i < pp; ++i)
        c[std::size_t(i)] = c[std::size_t(i)] + embeddingNoSync[std::size_t(i)];

    const double t1 = numpySum(c) + c.back() * (chunks - 1);
    const int k = std::min(pp - 1, chunks - 1);
    const double rest = numpySum(std::span<const double>(c).subspan(1));
    const double t2 = (pyMax(((k * c[0]) * 1) / 3, (rest * 1) / 3) + pyMax(((k * c[0]) * 2) / 3, (rest * 2) / 3))
        + c[0] * std::max(0, chunks + 1 - pp);
    result.sequential_s = t1;
    result.steady_state_s = t2;
    const double t = pyMax(t1, t2);

    double tail = 0;
    bool first = true;
    for (int i = 0; i < pp; ++i) {
        const double exposed
            = result.stage_sync_s[std::size_t(i)] - numpySum(std::span<const double>(c).subspan(0, std::size_t(i) + 1));
        result.exposed_sync_s.push_back(exposed);
        if (first || exposed > tail)
            tail = exposed;
        first = false;
    }
    if (tail <= 0)
        tail = 0;
    result.sync_tail_s = tail;
    result.time_cost_s = t + tail;
    return result;
}

} // namespace stratex::galvatron
