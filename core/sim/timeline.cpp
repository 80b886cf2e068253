// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/timeline.h"

namespace stratex::sim {

std::size_t Timeline::opCount() const
{
    std::size_t count = 0;
    for (const DeviceTimeline& device : devices)
        count += device.compute.size() + device.comm.size();
    return count;
}

std::vector<DeviceUtilization> deviceUtilization(const Timeline& timeline)
{
    std::vector<DeviceUtilization> result;
    result.reserve(timeline.devices.size());
    for (const DeviceTimeline& device : timeline.devices) {
        DeviceUtilization use;
        for (const TimelineOp& op : device.compute)
            use.busy_us += op.duration_us;
        use.bubble_us = timeline.makespan_us > use.busy_us ? timeline.makespan_us - use.busy_us : 0;
        if (timeline.makespan_us > 0) {
            use.busy_percent = 100.0 * use.busy_us / timeline.makespan_us;
            use.bubble_percent = 100.0 * use.bubble_us / timeline.makespan_us;
        }
        result.push_back(use);
    }
    return result;
}

} // namespace stratex::sim
