// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/partition_kk.h"

#include <algorithm>
#include <numeric>

#include <queue>

#include "core/common/error.h"

namespace stratex::planner {

namespace {

struct Bin {
    double sum = 0;
    std::vector<int> items;
};

struct Tuple {
    std::vector<Bin> bins; // sorted by sum, descending
    int order = 0; // creation order, for deterministic ties
    double spread() const { return bins.front().sum - bins.back().sum; }
};

struct LessSpread {
    bool operator()(const Tuple& a, const Tuple& b) const
    {
        if (a.spread() != b.spread())
            return a.spread() < b.spread();
        return a.order > b.order; // earlier tuples first on equal spread
    }
};

void sortBins(std::vector<Bin>& bins)
{
    std::stable_sort(bins.begin(), bins.end(), [](const Bin& a, const Bin& b) { return a.sum > b.sum; });
}

} // namespace

std::vector<std::vector<int>> partitionLargestDifferencing(const std::vector<double>& weights, int bins)
{
    if (bins < 1)
        throw Error("partition: the number of bins must be at least 1, not " + std::to_string(bins));
    const auto k = static_cast<std::size_t>(bins);
    std::vector<std::vector<int>> result(k);
    if (weights.empty())
        return result;
    std::priority_queue<Tuple, std::vector<Tuple>, LessSpread> heap;
    int created = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        Tuple tuple;
        tuple.bins.resize(k);
        tuple.bins[0].sum = weights[i];
        tuple.bins[0].items.push_back(static_cast<int>(i));
        sortBins(tuple.bins);
        tuple.order = created++;
        heap.push(std::move(tuple));
    }
    while (heap.size() > 1) {
        Tuple a = heap.top();
        heap.pop();
        Tuple b = heap.top();
        heap.pop();
        Tuple merged;
        merged.bins.resize(k);
        for (std::size_t j = 0; j < k; ++j) {
            Bin& target = merged.bins[j];
            const Bin& large = a.bins[j];
            const Bin& small = b.bins[k - 1 - j];
            target.sum = large.sum + small.sum;
            target.items = large.items;
            target.items.insert(target.items.end(), small.items.begin(), small.items.end());
        }
        sortBins(merged.bins);
        merged.order = created++;
        heap.push(std::move(merged));
    }
    std::vector<Bin> finalBins = heap.top().bins;
    for (Bin& bin : finalBins)
        std::sort(bin.items.begin(), bin.items.end());
    std::stable_sort(finalBins.begin(), finalBins.end(), [](const Bin& a, const Bin& b) {
        if (a.items.empty() != b.items.empty())
            return b.items.empty();
        return !a.items.empty() && a.items.front() < b.items.front();
    });
    for (std::size_t j = 0; j < k; ++j)
        result[j] = std::move(finalBins[j].items);
    return result;
}

} // namespace stratex::planner
