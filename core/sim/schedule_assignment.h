// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Device assignments (docs/dynapipe-planner.md §1 "Placement"): a device per model layer. Consecutive
// layers on one device are merged into one pipeline stage before simulation. The assignment is
// classified as linear (one stage per device), interleaved (the same device cycle repeated
// c >= 2 times, Megatron's virtual stages) or other (e.g. the zig-zag {0,1,2,3,3,2,1,0}), and
// the classification decides which schedules can run it.

#include <string>
#include <vector>

#include "core/sim/schedule_kind.h"

namespace stratex::sim {

enum class AssignmentKind { Linear, Interleaved, Other };

std::string_view assignmentKindName(AssignmentKind kind); // "linear", "interleaved", "other"

// A run of consecutive layers on one device.
struct PipelineStage {
    int device = 0;
    int first_layer = 0;
    int last_layer = 0; // inclusive
    int chunk = 0; // how many earlier stages the same device holds (the virtual-stage index)
};

struct PipelineLayout {
    AssignmentKind kind = AssignmentKind::Linear;
    int n_devices = 0;
    int n_chunks = 1; // stages per device (interleaved: c; linear: 1; other: the maximum)
    std::vector<PipelineStage> stages; // merged stages in model order
    std::vector<int> device_assignment; // the input, one device per layer

    int stageCount() const { return static_cast<int>(stages.size()); }
    int layerCount() const { return static_cast<int>(device_assignment.size()); }
};

// Merges and classifies. Throws stratex::Error with the reason when the assignment is
// inconsistent: empty, a negative device, or device ids that are not exactly 0..D-1.
PipelineLayout analyzeAssignment(const std::vector<int>& deviceOfLayer);

// A V placement: devices 0, 1, ..., p-1 and back p-1, ..., 0 (p >= 2), the turn on device p-1
// holding an even number of layers, e.g. [0,1,2,3,3,2,1,0]. Classified "other"; its merged
// stages put both chunks of device p-1 into one stage, as DynaPipe does.
bool isVShape(const PipelineLayout& layout);

// The V placement (DualPipeV, ZB-V) with its turn split in halves: 2p stages, stage k on device k (chunk 0) for
// k < p and on device 2p-1-k (chunk 1) after, as a V schedule runs them. Throws stratex::Error
// when the layout is not a V.
PipelineLayout vShapeLayout(const PipelineLayout& layout);

// "" when `kind` can run on the layout, else why not ("1F1B needs a linear device assignment
// (one stage per device), got interleaved [0,1,0,1]").
std::string scheduleInvalidReason(const PipelineLayout& layout, ScheduleKind kind);

// Every schedule the simulator can run on the layout, wait-free-cyclic first.
std::vector<ScheduleKind> validSchedules(const PipelineLayout& layout);

// DynaPipe's planner candidates: wait-free-cyclic, plus 1F1B for a linear layout with more than
// one device, or plus interleaved-1F1B for an interleaved layout.
std::vector<ScheduleKind> plannerSchedules(const PipelineLayout& layout);

std::string assignmentText(const std::vector<int>& deviceOfLayer); // "[0,1,2,3]"

} // namespace stratex::sim
