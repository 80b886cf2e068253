// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_geometry.h"

#include "controllers/timeline_document.h"

namespace stratex::ui {

TimelineGeometry::TimelineGeometry(const controllers::TimelineDocument& document)
    : m_document(document)
{
}

int TimelineGeometry::planTop(int plan) const
{
    int top = 0;
    for (int p = 0; p < plan; ++p)
        top += kPlanHeaderHeight + m_document.plans[std::size_t(p)].deviceCount() * kDeviceHeight;
    return top;
}

int TimelineGeometry::contentHeight() const
{
    return planTop(int(m_document.plans.size()));
}

QRect TimelineGeometry::planHeader(int plan, int trackWidth) const
{
    return QRect(-kLabelWidth, planTop(plan), kLabelWidth + trackWidth, kPlanHeaderHeight);
}

int TimelineGeometry::deviceTop(int plan, int device) const
{
    return planTop(plan) + kPlanHeaderHeight + device * kDeviceHeight;
}

QRect TimelineGeometry::lane(int plan, int device, TimelineLane lane, int trackWidth) const
{
    const int top = deviceTop(plan, device);
    switch (lane) {
    case TimelineLane::Compute:
        return QRect(0, top, trackWidth, kComputeHeight);
    case TimelineLane::Send:
        return QRect(0, top + kComputeHeight, trackWidth, kCommHeight);
    case TimelineLane::Recv:
        return QRect(0, top + kComputeHeight + kCommHeight, trackWidth, kCommHeight);
    case TimelineLane::Memory:
        return QRect(0, top + kComputeHeight + 2 * kCommHeight, trackWidth, kMemoryHeight);
    }
    return {};
}

std::optional<TimelineGeometry::Hit> TimelineGeometry::hitAt(int contentY) const
{
    for (int plan = 0; plan < int(m_document.plans.size()); ++plan) {
        const int devices = m_document.plans[std::size_t(plan)].deviceCount();
        const int first = planTop(plan) + kPlanHeaderHeight;
        if (contentY < first || contentY >= first + devices * kDeviceHeight)
            continue;
        const int device = (contentY - first) / kDeviceHeight;
        const int inBand = (contentY - first) % kDeviceHeight;
        if (inBand < kComputeHeight)
            return Hit { plan, device, TimelineLane::Compute };
        if (inBand < kComputeHeight + kCommHeight)
            return Hit { plan, device, TimelineLane::Send };
        if (inBand < kComputeHeight + 2 * kCommHeight)
            return Hit { plan, device, TimelineLane::Recv };
        if (inBand < kComputeHeight + 2 * kCommHeight + kMemoryHeight)
            return Hit { plan, device, TimelineLane::Memory };
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace stratex::ui
