// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/schedule_assignment.h"

#include <algorithm>

#include "core/common/error.h"

namespace stratex::sim {

std::string_view assignmentKindName(AssignmentKind kind)
{
    switch (kind) {
    case AssignmentKind::Linear:
        return "linear";
    case AssignmentKind::Interleaved:
        return "interleaved";
    case AssignmentKind::Other:
        return "other";
    }
    return "?";
}

std::string assignmentText(const std::vector<int>& deviceOfLayer)
{
    std::string text = "[";
    for (std::size_t i = 0; i < deviceOfLayer.size(); ++i) {
        if (i)
            text += ',';
        text += std::to_string(deviceOfLayer[i]);
    }
    return text + "]";
}

namespace {

AssignmentKind classify(const std::vector<PipelineStage>& stages, int devices)
{
    const int n = static_cast<int>(stages.size());
    if (n == devices)
        return AssignmentKind::Linear;
    if (n % devices != 0)
        return AssignmentKind::Other;
    // The first `devices` stages must visit every device once and the rest repeat that cycle.
    for (int k = 0; k < n; ++k) {
        if (stages[static_cast<std::size_t>(k)].device != stages[static_cast<std::size_t>(k % devices)].device)
            return AssignmentKind::Other;
    }
    return AssignmentKind::Interleaved;
}

} // namespace

PipelineLayout analyzeAssignment(const std::vector<int>& deviceOfLayer)
{
    if (deviceOfLayer.empty())
        throw Error("empty device assignment: every layer needs a device");
    int maxDevice = 0;
    for (std::size_t layer = 0; layer < deviceOfLayer.size(); ++layer) {
        const int device = deviceOfLayer[layer];
        if (device < 0) {
            throw Error("device assignment " + assignmentText(deviceOfLayer) + ": layer " + std::to_string(layer)
                + " has negative device " + std::to_string(device));
        }
        maxDevice = std::max(maxDevice, device);
    }
    std::vector<char> used(static_cast<std::size_t>(maxDevice) + 1, 0);
    for (int device : deviceOfLayer)
        used[static_cast<std::size_t>(device)] = 1;
    for (int device = 0; device <= maxDevice; ++device) {
        if (!used[static_cast<std::size_t>(device)]) {
            throw Error("device assignment " + assignmentText(deviceOfLayer) + ": device " + std::to_string(device)
                + " holds no layer; devices must be numbered 0.." + std::to_string(maxDevice) + " without gaps");
        }
    }

    PipelineLayout layout;
    layout.device_assignment = deviceOfLayer;
    layout.n_devices = maxDevice + 1;
    std::vector<int> stagesOnDevice(static_cast<std::size_t>(layout.n_devices), 0);
    const int layers = static_cast<int>(deviceOfLayer.size());
    for (int layer = 0; layer < layers; ++layer) {
        const int device = deviceOfLayer[static_cast<std::size_t>(layer)];
        if (!layout.stages.empty() && layout.stages.back().device == device) {
            layout.stages.back().last_layer = layer;
            continue;
        }
        PipelineStage stage;
        stage.device = device;
        stage.first_layer = layer;
        stage.last_layer = layer;
        stage.chunk = stagesOnDevice[static_cast<std::size_t>(device)]++;
        layout.stages.push_back(stage);
    }
    layout.n_chunks = *std::max_element(stagesOnDevice.begin(), stagesOnDevice.end());
    layout.kind = classify(layout.stages, layout.n_devices);
    return layout;
}

std::string scheduleInvalidReason(const PipelineLayout& layout, ScheduleKind kind)
{
    const std::string given
        = std::string(assignmentKindName(layout.kind)) + " " + assignmentText(layout.device_assignment);
    switch (kind) {
    case ScheduleKind::GPipe:
    case ScheduleKind::OneFOneB:
    case ScheduleKind::ZbH1:
        if (layout.kind != AssignmentKind::Linear) {
            return std::string(scheduleName(kind)) + " needs a linear device assignment (one stage per device), got "
                + given;
        }
        return {};
    case ScheduleKind::Interleaved1F1B:
    case ScheduleKind::FlexibleInterleaved:
        if (layout.kind != AssignmentKind::Interleaved) {
            return std::string(scheduleName(kind)) + " needs an interleaved device assignment (the same device cycle repeated at least "
                   "twice, e.g. [0,1,0,1]), got "
                + given;
        }
        return {};
    case ScheduleKind::Cyclic:
    case ScheduleKind::WaitFreeCyclic:
    case ScheduleKind::Fifo:
        return {};
    case ScheduleKind::DualPipeV:
    case ScheduleKind::ZbV:
        if (!isVShape(layout)) {
            return std::string(scheduleName(kind))
                + " needs a V-shaped device assignment (devices 0..p-1, then p-1..0, p >= 2, an even number "
                  "of layers at the turn, e.g. [0,1,2,3,3,2,1,0]), got "
                + given;
        }
        return {};
    }
    return "unknown schedule";
}

bool isVShape(const PipelineLayout& layout)
{
    const int p = layout.n_devices;
    if (p < 2 || layout.stageCount() != 2 * p - 1)
        return false;
    for (int k = 0; k < layout.stageCount(); ++k) {
        const int expected = k < p ? k : 2 * p - 2 - k;
        if (layout.stages[static_cast<std::size_t>(k)].device != expected)
            return false;
    }
    const PipelineStage& turn = layout.stages[static_cast<std::size_t>(p - 1)];
    return (turn.last_layer - turn.first_layer + 1) % 2 == 0;
}

PipelineLayout vShapeLayout(const PipelineLayout& layout)
{
    if (!isVShape(layout))
        throw Error(scheduleInvalidReason(layout, ScheduleKind::DualPipeV));
    const int p = layout.n_devices;
    PipelineLayout v = layout;
    v.n_chunks = 2;
    v.stages.clear();
    for (int k = 0; k < layout.stageCount(); ++k) {
        const PipelineStage& stage = layout.stages[static_cast<std::size_t>(k)];
        if (k != p - 1) {
            v.stages.push_back(stage);
            continue;
        }
        // The turn: its first half ends chunk 0, its second half starts chunk 1.
        const int half = (stage.last_layer - stage.first_layer + 1) / 2;
        PipelineStage down = stage;
        down.last_layer = stage.first_layer + half - 1;
        down.chunk = 0;
        PipelineStage up = stage;
        up.first_layer = stage.first_layer + half;
        up.chunk = 1;
        v.stages.push_back(down);
        v.stages.push_back(up);
    }
    return v;
}

std::vector<ScheduleKind> validSchedules(const PipelineLayout& layout)
{
    static constexpr ScheduleKind preference[] = { ScheduleKind::WaitFreeCyclic, ScheduleKind::OneFOneB,
        ScheduleKind::Interleaved1F1B, ScheduleKind::ZbH1, ScheduleKind::DualPipeV, ScheduleKind::ZbV,
        ScheduleKind::GPipe, ScheduleKind::Cyclic, ScheduleKind::Fifo, ScheduleKind::FlexibleInterleaved };
    std::vector<ScheduleKind> valid;
    for (ScheduleKind kind : preference) {
        if (scheduleInvalidReason(layout, kind).empty())
            valid.push_back(kind);
    }
    return valid;
}

std::vector<ScheduleKind> plannerSchedules(const PipelineLayout& layout)
{
    std::vector<ScheduleKind> schedules { ScheduleKind::WaitFreeCyclic };
    if (layout.kind == AssignmentKind::Linear && layout.n_devices > 1)
        schedules.push_back(ScheduleKind::OneFOneB);
    else if (layout.kind == AssignmentKind::Interleaved)
        schedules.push_back(ScheduleKind::Interleaved1F1B);
    return schedules;
}

} // namespace stratex::sim
