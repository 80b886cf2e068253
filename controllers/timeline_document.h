// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QString>
#include <QStringList>

#include "core/sim/timeline.h"

namespace stratex::controllers {

// One simulated plan as the Gantt shows it. Sends and receives are split into lanes of their own
// because a receive may overlap a send on the full-duplex link; each lane is then sorted and free
// of overlaps, which is what the painter's binary search needs.
struct TimelinePlanView {
    QString name;
    sim::Timeline timeline;
    std::vector<sim::DeviceUtilization> utilization;
    double memoryLimitMb = 0; // drawn as a line under each device; 0 = none
    std::vector<std::vector<sim::TimelineOp>> sends; // per device
    std::vector<std::vector<sim::TimelineOp>> recvs; // per device
    double maxPeakMemoryMb = 0;
    QStringList deviceLabels; // per device; empty: the painter's "device N"

    int deviceCount() const { return int(timeline.devices.size()); }
    double averageBubblePercent() const;
    // The pipeline's bubble: the idle share of the makespan on the busiest device (the least idle
    // one), the quantity the Search page's tables call bubble (megatron::Estimate::bubble_fraction:
    // 1 - busiest stage / makespan). Each device's own idle share is utilization[d].bubble_percent.
    double pipelineBubblePercent() const;
};

TimelinePlanView makeTimelinePlanView(QString name, sim::Timeline timeline, double memoryLimitMb = 0);

// One or more plans on a shared time axis (compare mode shows two).
struct TimelineDocument {
    std::vector<TimelinePlanView> plans;

    double makespanUs() const; // the longest plan's
    // Common range of every memory curve: from the smallest model state (memory that never moves)
    // to the largest peak or limit, so the activations' rise and fall fill the lane.
    double memoryFloorMb() const;
    double memoryScaleMb() const;
    std::size_t opCount() const;
};

} // namespace stratex::controllers
