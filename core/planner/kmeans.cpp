// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/kmeans.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/common/error.h"
#include "core/planner/planner_rng.h"

namespace stratex::planner {

namespace {

using Point = std::vector<double>;

double squaredDistance(const Point& a, const Point& b)
{
    double sum = 0;
    for (std::size_t d = 0; d < a.size(); ++d) {
        const double delta = a[d] - b[d];
        sum += delta * delta;
    }
    return sum;
}

std::vector<Point> seedPlusPlus(const std::vector<Point>& points, int k, PlannerRng& rng)
{
    std::vector<Point> centroids { points[rng.below(points.size())] };
    std::vector<double> nearest(points.size(), std::numeric_limits<double>::infinity());
    while (static_cast<int>(centroids.size()) < k) {
        double total = 0;
        for (std::size_t i = 0; i < points.size(); ++i) {
            nearest[i] = std::min(nearest[i], squaredDistance(points[i], centroids.back()));
            total += nearest[i];
        }
        if (!(total > 0))
            break; // every point already is a centroid
        double target = rng.uniform() * total;
        std::size_t chosen = points.size() - 1;
        for (std::size_t i = 0; i < points.size(); ++i) {
            target -= nearest[i];
            if (target < 0 && nearest[i] > 0) {
                chosen = i;
                break;
            }
        }
        centroids.push_back(points[chosen]);
    }
    return centroids;
}

KMeansResult lloyd(const std::vector<Point>& points, std::vector<Point> centroids, int maxIterations)
{
    const std::size_t n = points.size();
    const std::size_t dims = points.front().size();
    std::vector<int> label(n, -1);
    for (int iteration = 0; iteration < maxIterations; ++iteration) {
        bool changed = false;
        for (std::size_t i = 0; i < n; ++i) {
            int best = 0;
            double bestDistance = std::numeric_limits<double>::infinity();
            for (std::size_t c = 0; c < centroids.size(); ++c) {
                const double d = squaredDistance(points[i], centroids[c]);
                if (d < bestDistance) {
                    bestDistance = d;
                    best = static_cast<int>(c);
                }
            }
            if (label[i] != best) {
                label[i] = best;
                changed = true;
            }
        }
        if (!changed)
            break;
        std::vector<Point> sums(centroids.size(), Point(dims, 0));
        std::vector<int> counts(centroids.size(), 0);
        for (std::size_t i = 0; i < n; ++i) {
            const auto c = static_cast<std::size_t>(label[i]);
            for (std::size_t d = 0; d < dims; ++d)
                sums[c][d] += points[i][d];
            ++counts[c];
        }
        for (std::size_t c = 0; c < centroids.size(); ++c) {
            if (counts[c] == 0)
                continue; // an emptied cluster keeps its centroid
            for (std::size_t d = 0; d < dims; ++d)
                centroids[c][d] = sums[c][d] / counts[c];
        }
    }
    KMeansResult result;
    result.label = label;
    for (std::size_t i = 0; i < n; ++i)
        result.inertia += squaredDistance(points[i], centroids[static_cast<std::size_t>(label[i])]);
    return result;
}

// Renumbers clusters by first appearance and drops empty ones.
void normalize(KMeansResult& result)
{
    std::map<int, int> number;
    for (int& l : result.label) {
        const auto [it, inserted] = number.emplace(l, static_cast<int>(number.size()));
        l = it->second;
    }
    result.cluster_count = static_cast<int>(number.size());
}

} // namespace

KMeansResult kmeans(
    const std::vector<std::vector<double>>& points, int k, std::uint64_t seed, int restarts, int maxIterations)
{
    if (k < 1)
        throw Error("k-means needs at least one cluster");
    KMeansResult best;
    if (points.empty())
        return best;
    for (const Point& p : points) {
        if (p.size() != points.front().size())
            throw Error("k-means points must all have the same dimension");
    }
    const std::set<Point> distinct(points.begin(), points.end());
    k = std::min<int>(k, static_cast<int>(distinct.size()));
    PlannerRng rng(seed);
    best.inertia = std::numeric_limits<double>::infinity();
    for (int attempt = 0; attempt < std::max(1, restarts); ++attempt) {
        KMeansResult run = lloyd(points, seedPlusPlus(points, k, rng), maxIterations);
        if (run.inertia < best.inertia)
            best = std::move(run);
    }
    normalize(best);
    return best;
}

} // namespace stratex::planner
