// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/microbatch_sample_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace stratex::planner {

namespace {

using Point = std::pair<double, double>;

bool longerFirst(const Sample& a, const Sample& b)
{
    if (a.seqlen != b.seqlen)
        return a.seqlen > b.seqlen;
    if (a.decoder_seqlen != b.decoder_seqlen)
        return a.decoder_seqlen > b.decoder_seqlen;
    return a.id > b.id;
}

double distanceBetween(const Point& a, const Point& b, TourDistance kind)
{
    const double dx = std::fabs(a.first - b.first);
    const double dy = std::fabs(a.second - b.second);
    switch (kind) {
    case TourDistance::Sum:
        return dx + dy;
    case TourDistance::Max:
        return std::max(dx, dy);
    case TourDistance::Square:
        return dx * dx + dy * dy;
    }
    return dx + dy;
}

std::vector<int> nearestNeighbourPath(const std::vector<Point>& points, int start, TourDistance kind)
{
    const std::size_t n = points.size();
    std::vector<int> order { start };
    std::vector<bool> used(n, false);
    used[static_cast<std::size_t>(start)] = true;
    for (std::size_t step = 1; step < n; ++step) {
        const Point& from = points[static_cast<std::size_t>(order.back())];
        int best = -1;
        double bestDistance = std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < n; ++j) {
            if (used[j])
                continue;
            const double d = distanceBetween(from, points[j], kind);
            if (d < bestDistance) {
                bestDistance = d;
                best = static_cast<int>(j);
            }
        }
        used[static_cast<std::size_t>(best)] = true;
        order.push_back(best);
    }
    return order;
}

// 2-opt for an open path: reversing order[i..j] replaces the edges (i-1, i) and (j, j+1), either
// of which may not exist at the ends. Bounded passes keep it predictable on large inputs.
void improveTwoOpt(const std::vector<Point>& points, std::vector<int>& order, TourDistance kind)
{
    constexpr int kMaxPasses = 64;
    constexpr double kMinGain = 1e-9;
    const int n = static_cast<int>(order.size());
    auto d = [&](int a, int b) {
        return distanceBetween(points[static_cast<std::size_t>(order[static_cast<std::size_t>(a)])],
            points[static_cast<std::size_t>(order[static_cast<std::size_t>(b)])], kind);
    };
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        bool improved = false;
        for (int i = 0; i < n - 1; ++i) {
            for (int j = i + 1; j < n; ++j) {
                double before = 0;
                double after = 0;
                if (i > 0) {
                    before += d(i - 1, i);
                    after += d(i - 1, j);
                }
                if (j < n - 1) {
                    before += d(j, j + 1);
                    after += d(i, j + 1);
                }
                if (before - after > kMinGain) {
                    std::reverse(order.begin() + i, order.begin() + j + 1);
                    improved = true;
                }
            }
        }
        if (!improved)
            break;
    }
}

} // namespace

double tourLength(const std::vector<Point>& points, const std::vector<int>& order, TourDistance distance)
{
    double length = 0;
    for (std::size_t i = 1; i < order.size(); ++i) {
        length += distanceBetween(
            points[static_cast<std::size_t>(order[i - 1])], points[static_cast<std::size_t>(order[i])], distance);
    }
    return length;
}

std::vector<int> openTour(const std::vector<Point>& points, TourDistance distance)
{
    const int n = static_cast<int>(points.size());
    if (n <= 2) {
        std::vector<int> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        return order;
    }
    // Starts: every point for small inputs, otherwise the lexicographic extremes and points
    // spread evenly in lexicographic order. An open path's good starts lie on the hull, which the
    // extremes cover.
    std::vector<int> byPosition(static_cast<std::size_t>(n));
    std::iota(byPosition.begin(), byPosition.end(), 0);
    std::sort(byPosition.begin(), byPosition.end(),
        [&](int a, int b) { return points[static_cast<std::size_t>(a)] < points[static_cast<std::size_t>(b)]; });
    std::vector<int> starts;
    constexpr int kAllStartsUpTo = 48;
    constexpr int kSpreadStarts = 8;
    if (n <= kAllStartsUpTo) {
        starts = byPosition;
    } else {
        for (int k = 0; k < kSpreadStarts; ++k)
            starts.push_back(
                byPosition[static_cast<std::size_t>(static_cast<long long>(k) * (n - 1) / (kSpreadStarts - 1))]);
    }
    std::vector<int> best;
    double bestLength = std::numeric_limits<double>::infinity();
    for (int start : starts) {
        std::vector<int> order = nearestNeighbourPath(points, start, distance);
        improveTwoOpt(points, order, distance);
        const double length = tourLength(points, order, distance);
        if (length < bestLength - 1e-9) {
            bestLength = length;
            best = std::move(order);
        }
    }
    return best;
}

std::vector<int> completeLinkageClusters(const std::vector<Point>& points, double threshold, ProgressSink& progress)
{
    // Nearest-neighbour chain: complete linkage is reducible, so merging reciprocal nearest
    // neighbours as the chain finds them gives the same hierarchy as merging globally closest
    // pairs first. A chain whose top has no neighbour below the threshold only holds clusters
    // that can never merge again (complete-linkage distances only grow): they are final.
    const std::size_t n = points.size();
    std::vector<int> label(n);
    std::iota(label.begin(), label.end(), 0);
    if (n < 2)
        return label;
    std::vector<float> distance(n * n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const double dx = points[i].first - points[j].first;
            const double dy = points[i].second - points[j].second;
            distance[i * n + j] = static_cast<float>(std::sqrt(dx * dx + dy * dy));
        }
    }
    std::vector<bool> open(n, true); // may still merge
    std::vector<int> owner(n); // union-find parent for the final labels
    std::iota(owner.begin(), owner.end(), 0);
    auto root = [&](int x) {
        while (owner[static_cast<std::size_t>(x)] != x)
            x = owner[static_cast<std::size_t>(x)]
                = owner[static_cast<std::size_t>(owner[static_cast<std::size_t>(x)])];
        return x;
    };
    std::size_t openCount = n;
    std::vector<int> chain;
    std::size_t steps = 0;
    while (openCount > 1) {
        if ((++steps & 255) == 0)
            progress.throwIfCancelled();
        if (chain.empty()) {
            for (std::size_t i = 0; i < n; ++i) {
                if (open[i]) {
                    chain.push_back(static_cast<int>(i));
                    break;
                }
            }
        }
        const int a = chain.back();
        const int previous = chain.size() >= 2 ? chain[chain.size() - 2] : -1;
        int nearest = -1;
        float nearestDistance = std::numeric_limits<float>::infinity();
        for (std::size_t x = 0; x < n; ++x) {
            if (!open[x] || static_cast<int>(x) == a)
                continue;
            const float d = distance[static_cast<std::size_t>(a) * n + x];
            if (d < nearestDistance) {
                nearestDistance = d;
                nearest = static_cast<int>(x);
            }
        }
        if (previous >= 0
            && distance[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(previous)] <= nearestDistance)
            nearest = previous; // ties go to the chain, which guarantees progress
        if (nearest < 0 || !(nearestDistance < threshold)
            || !(distance[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(nearest)] < threshold)) {
            for (int member : chain) {
                open[static_cast<std::size_t>(member)] = false;
                --openCount;
            }
            chain.clear();
            continue;
        }
        if (nearest != previous) {
            chain.push_back(nearest);
            continue;
        }
        chain.pop_back();
        chain.pop_back();
        const int keep = std::min(a, nearest);
        const int gone = std::max(a, nearest);
        for (std::size_t x = 0; x < n; ++x) {
            const float merged = std::max(
                distance[static_cast<std::size_t>(keep) * n + x], distance[static_cast<std::size_t>(gone) * n + x]);
            distance[static_cast<std::size_t>(keep) * n + x] = merged;
            distance[x * n + static_cast<std::size_t>(keep)] = merged;
        }
        open[static_cast<std::size_t>(gone)] = false;
        --openCount;
        owner[static_cast<std::size_t>(root(gone))] = root(keep);
    }
    // Number clusters by their first point.
    std::map<int, int> number;
    for (std::size_t i = 0; i < n; ++i) {
        const int r = root(static_cast<int>(i));
        const auto [it, inserted] = number.emplace(r, static_cast<int>(number.size()));
        label[i] = it->second;
    }
    return label;
}

std::vector<Sample> orderSamples(
    std::vector<Sample> samples, bool encoderDecoder, const SampleOrderConfig& config, ProgressSink& progress)
{
    SampleOrdering ordering = config.ordering;
    if (ordering == SampleOrdering::Auto)
        ordering = encoderDecoder ? SampleOrdering::ClusteredTour : SampleOrdering::SortDescending;
    std::sort(samples.begin(), samples.end(), longerFirst);
    if (ordering == SampleOrdering::SortDescending || samples.size() < 2)
        return samples;

    // Cluster the distinct (enc, dec) points: equal points always share a cluster, so this keeps
    // the quadratic distance matrix at the number of distinct shapes.
    std::vector<Point> points;
    std::vector<int> pointOf(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const Point point { double(samples[i].seqlen), double(samples[i].decoder_seqlen) };
        if (points.empty() || points.back() != point)
            points.push_back(point);
        pointOf[i] = static_cast<int>(points.size()) - 1;
    }
    // samples are sorted, so equal points are adjacent and `points` is descending.
    const std::vector<int> cluster = completeLinkageClusters(points, config.cluster_distance_threshold, progress);
    const int clusterCount = cluster.empty() ? 0 : *std::max_element(cluster.begin(), cluster.end()) + 1;
    std::vector<Point> centroid(static_cast<std::size_t>(clusterCount), Point { 0, 0 });
    std::vector<int> members(static_cast<std::size_t>(clusterCount), 0);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto c = static_cast<std::size_t>(cluster[static_cast<std::size_t>(pointOf[i])]);
        centroid[c].first += samples[i].seqlen;
        centroid[c].second += samples[i].decoder_seqlen;
        ++members[c];
    }
    for (std::size_t c = 0; c < centroid.size(); ++c) {
        centroid[c].first /= members[c];
        centroid[c].second /= members[c];
    }
    progress.throwIfCancelled();
    std::vector<int> tour = openTour(centroid, config.distance);
    // Walk the tour from its longer end, so the longest samples come first as for decoder-only.
    auto size = [&](int c) {
        return centroid[static_cast<std::size_t>(c)].first + centroid[static_cast<std::size_t>(c)].second;
    };
    if (!tour.empty() && size(tour.back()) > size(tour.front()))
        std::reverse(tour.begin(), tour.end());
    std::vector<int> rank(static_cast<std::size_t>(clusterCount));
    for (std::size_t k = 0; k < tour.size(); ++k)
        rank[static_cast<std::size_t>(tour[k])] = static_cast<int>(k);
    std::vector<std::size_t> index(samples.size());
    std::iota(index.begin(), index.end(), std::size_t { 0 });
    // Stable on the longest-first order inside each cluster.
    std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
        return rank[static_cast<std::size_t>(cluster[static_cast<std::size_t>(pointOf[a])])]
            < rank[static_cast<std::size_t>(cluster[static_cast<std::size_t>(pointOf[b])])];
    });
    std::vector<Sample> ordered;
    ordered.reserve(samples.size());
    for (std::size_t i : index)
        ordered.push_back(samples[i]);
    return ordered;
}

} // namespace stratex::planner
