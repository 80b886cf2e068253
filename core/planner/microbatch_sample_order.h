// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The order the micro-batch DP may cut (docs/dynapipe-planner.md §2, "Stage 1"). Only contiguous runs
// of this order become micro-batches, so samples of similar shape must sit next to each other.

#include <vector>

#include "core/common/progress.h"
#include "core/planner/microbatch_types.h"

namespace stratex::planner {

enum class SampleOrdering {
    Auto, // SortDescending for decoder-only models, ClusteredTour for encoder-decoder models
    SortDescending, // by (seqlen, decoder_seqlen, id), longest first
    ClusteredTour, // complete-linkage clusters of the (enc, dec) points, visited along an open tour
};

enum class TourDistance { Sum, Max, Square }; // L1 (DynaPipe's default), L-infinity, squared L2

struct SampleOrderConfig {
    SampleOrdering ordering = SampleOrdering::Auto;
    TourDistance distance = TourDistance::Sum;
    double cluster_distance_threshold = 16; // clusters never span more than this (Euclidean)
};

std::vector<Sample> orderSamples(
    std::vector<Sample> samples, bool encoderDecoder, const SampleOrderConfig& config, ProgressSink& progress);

// The building blocks, exposed for tests.

// Complete-linkage agglomerative clustering of 2-D points (Euclidean), merging while the
// linkage distance is below the threshold. Returns a cluster index per point, clusters numbered
// by their first point. Deterministic (ties go to the lower index). O(n^2) time and memory.
std::vector<int> completeLinkageClusters(
    const std::vector<std::pair<double, double>>& points, double threshold, ProgressSink& progress);

// A short open path through all points (free end points), by nearest-neighbour construction from
// several starts and 2-opt improvement; deterministic. Returns the visiting order.
std::vector<int> openTour(const std::vector<std::pair<double, double>>& points, TourDistance distance);
double tourLength(
    const std::vector<std::pair<double, double>>& points, const std::vector<int>& order, TourDistance distance);

} // namespace stratex::planner
