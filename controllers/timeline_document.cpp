// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/timeline_document.h"

#include <algorithm>

#include "core/common/plan_figures.h"

namespace stratex::controllers {

using sim::OpKind;

double TimelinePlanView::pipelineBubblePercent() const
{
    std::vector<double> idle;
    for (const sim::DeviceUtilization& device : utilization)
        idle.push_back(device.bubble_percent / 100);
    return figures::pipelineBubbleFromIdle(idle) * 100;
}

double TimelinePlanView::averageBubblePercent() const
{
    if (utilization.empty())
        return 0;
    double sum = 0;
    for (const sim::DeviceUtilization& device : utilization)
        sum += device.bubble_percent;
    return sum / double(utilization.size());
}

TimelinePlanView makeTimelinePlanView(QString name, sim::Timeline timeline, double memoryLimitMb)
{
    TimelinePlanView view;
    view.name = std::move(name);
    view.utilization = sim::deviceUtilization(timeline);
    view.memoryLimitMb = memoryLimitMb;
    view.sends.resize(timeline.devices.size());
    view.recvs.resize(timeline.devices.size());
    for (std::size_t d = 0; d < timeline.devices.size(); ++d) {
        for (const sim::TimelineOp& op : timeline.devices[d].comm)
            (op.kind == OpKind::Recv ? view.recvs[d] : view.sends[d]).push_back(op);
        view.maxPeakMemoryMb = std::max(view.maxPeakMemoryMb, timeline.devices[d].peak_memory_mb);
    }
    view.timeline = std::move(timeline);
    return view;
}

double TimelineDocument::makespanUs() const
{
    double makespan = 0;
    for (const TimelinePlanView& plan : plans)
        makespan = std::max(makespan, plan.timeline.makespan_us);
    return makespan;
}

double TimelineDocument::memoryScaleMb() const
{
    double scale = 0;
    for (const TimelinePlanView& plan : plans)
        scale = std::max({ scale, plan.maxPeakMemoryMb, plan.memoryLimitMb });
    return scale;
}

double TimelineDocument::memoryFloorMb() const
{
    double floor = -1;
    for (const TimelinePlanView& plan : plans) {
        for (const sim::DeviceTimeline& device : plan.timeline.devices)
            floor = floor < 0 ? device.model_state_mb : std::min(floor, device.model_state_mb);
    }
    return std::max(0.0, floor);
}

std::size_t TimelineDocument::opCount() const
{
    std::size_t count = 0;
    for (const TimelinePlanView& plan : plans)
        count += plan.timeline.opCount();
    return count;
}

} // namespace stratex::controllers
