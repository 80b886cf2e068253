// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/recompute_type.h"

namespace stratex::planner {

std::string_view recomputeTypeName(RecomputeType type)
{
    switch (type) {
    case RecomputeType::None:
        return "none";
    case RecomputeType::Selective:
        return "selective";
    case RecomputeType::Full:
        return "full";
    }
    return "none";
}

std::optional<RecomputeType> parseRecomputeType(std::string_view name)
{
    for (RecomputeType type : kAllRecomputeTypes) {
        if (recomputeTypeName(type) == name)
            return type;
    }
    return std::nullopt;
}

std::optional<RecomputeType> strongerRecompute(RecomputeType type)
{
    switch (type) {
    case RecomputeType::None:
        return RecomputeType::Selective;
    case RecomputeType::Selective:
        return RecomputeType::Full;
    case RecomputeType::Full:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace stratex::planner
