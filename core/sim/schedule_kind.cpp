// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/schedule_kind.h"

#include "core/common/error.h"

namespace stratex::sim {

std::string_view scheduleName(ScheduleKind kind)
{
    switch (kind) {
    case ScheduleKind::GPipe:
        return "GPipe";
    case ScheduleKind::OneFOneB:
        return "1F1B";
    case ScheduleKind::Interleaved1F1B:
        return "interleaved-1F1B";
    case ScheduleKind::ZbH1:
        return "ZB-H1";
    case ScheduleKind::Cyclic:
        return "cyclic";
    case ScheduleKind::WaitFreeCyclic:
        return "wait-free-cyclic";
    case ScheduleKind::Fifo:
        return "fifo";
    case ScheduleKind::DualPipeV:
        return "DualPipeV";
    case ScheduleKind::ZbV:
        return "ZB-V";
    case ScheduleKind::FlexibleInterleaved:
        return "flexible-interleaved";
    }
    return "?";
}

std::optional<ScheduleKind> parseScheduleName(std::string_view name)
{
    for (ScheduleKind kind : kAllScheduleKinds) {
        if (scheduleName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

std::string knownScheduleNames()
{
    std::string names;
    for (ScheduleKind kind : kAllScheduleKinds) {
        if (!names.empty())
            names += ", ";
        names += scheduleName(kind);
    }
    return names;
}

bool splitsBackward(ScheduleKind kind)
{
    return kind == ScheduleKind::ZbH1 || kind == ScheduleKind::DualPipeV || kind == ScheduleKind::ZbV;
}

ScheduleKind scheduleFromName(std::string_view name)
{
    if (const auto kind = parseScheduleName(name))
        return *kind;
    throw Error("unknown schedule \"" + std::string(name) + "\" (known: " + knownScheduleNames() + ")");
}

} // namespace stratex::sim
