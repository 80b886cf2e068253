// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace stratex::planner {

struct KMeansResult {
    std::vector<int> label; // cluster of each point, clusters numbered by their first point
    int cluster_count = 0; // may be below k when there are fewer distinct points
    double inertia = 0; // sum of squared distances to the centroids
};

// Lloyd's k-means with k-means++ seeding from PlannerRng(seed); `restarts` seedings, the one with
// the lowest inertia kept (earliest on ties). Deterministic: same points + seed -> same labels.
// Points are rows of equal dimension. k is capped by the number of distinct points.
KMeansResult kmeans(const std::vector<std::vector<double>>& points, int k, std::uint64_t seed, int restarts = 4,
    int maxIterations = 100);

} // namespace stratex::planner
