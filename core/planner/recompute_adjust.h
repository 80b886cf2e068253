// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Per-micro-batch recompute adjustment (adjust_rc_plan, docs/dynapipe-planner.md §4): when a
// simulated plan overflows device memory, raise the recompute type of the micro-batches whose
// backward is followed by the most idle time on an over-limit device -- that idle time can hide
// the recomputation. One call is one round; the caller re-simulates and repeats.

#include <functional>
#include <vector>

#include "core/planner/recompute_plan.h"
#include "core/sim/timeline.h"

namespace stratex::planner {

// Idle share after one backward: the gap from the end of a micro-batch's backward on a device to
// the next compute op there, divided by the backward's duration (the largest over its chunks).
// The device's last compute op has no gap.
struct BackwardRedundancy {
    int device = 0;
    int microbatch = 0; // stable id
    double redundancy = 0;
};

// Every (device, micro-batch) with a backward that has a following compute op, sorted by
// redundancy descending, then device, then micro-batch id.
std::vector<BackwardRedundancy> backwardRedundancy(const sim::Timeline& timeline);

struct RecomputeAdjustOptions {
    double memory_limit_mb = 0;
    // Micro-batches raised per over-limit device and round (the fork's topk).
    int microbatches_per_device = 1;
    // Distinct micro-batches one round may raise over all devices (one raised on several devices
    // counts once); 0 = no cap. Fast mode's "at most 2 micro-batches per round".
    int max_microbatches_per_round = 0;
    // At or above this redundancy a micro-batch jumps straight to full recompute; below it it
    // goes to selective (a micro-batch already at selective always goes to full).
    double full_recompute_redundancy = 0.5;
    // Normal mode: on each over-limit device, every moment the memory is above the limit is
    // covered, in time order, by raising micro-batches in flight then (best redundancy first)
    // until the memory this round's raises free (the `saving` callback) covers that moment's
    // overflow -- instead of `microbatches_per_device` at the highest peak. One round then treats
    // every overflow episode, which one-at-a-time raising needs a simulation each for; the next
    // round corrects what moved.
    bool cover_overflow = false;
};

// Activation memory (MB) raising `microbatch` on `device` from one type to another frees.
using RecomputeSaving = std::function<double(int microbatch, int device, RecomputeType from, RecomputeType to)>;

struct RecomputeAdjustment {
    int device = 0;
    int microbatch = 0;
    RecomputeType from = RecomputeType::None;
    RecomputeType to = RecomputeType::None;
};

// Micro-batches holding activations on `device` when its memory peaks (first forward started at
// or before the peak, last backward not yet finished): only raising these lowers that peak.
std::vector<int> inflightAtPeak(const sim::DeviceTimeline& device);

// One round. On each over-limit device, the micro-batches in flight at its peak are ranked by
// backward redundancy (one whose backward is the device's last op counts as 0) and the first
// `microbatches_per_device` not yet at full are raised (when none of the in-flight ones can be
// raised, the device's whole ranking is used). Restricting the raise to the micro-batches that
// make up the peak is our refinement of the fork's rule, which ranks all of them: a raise
// elsewhere cannot lower the peak and wastes a round.
// `available(id, type)` says whether the cost model can price the micro-batch under the type (a
// raise to an unavailable type tries the next stronger one). Returns the changes made to
// `plan`; none means nothing more can be done.
// `saving` is only read with cover_overflow (it may be empty otherwise).
std::vector<RecomputeAdjustment> adjustRecomputePlan(RecomputePlan& plan, const sim::Timeline& timeline,
    const std::vector<double>& peakMemoryMbPerDevice, const RecomputeAdjustOptions& options,
    const std::function<bool(int, RecomputeType)>& available, const RecomputeSaving& saving = {});

} // namespace stratex::planner
