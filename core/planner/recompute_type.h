// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace stratex::planner {

// Activation recomputation of a layer. The enumerators are ordered by how much memory they
// save (and time they cost): the micro-batch DP tries them in this order and the recompute
// adjustment only ever raises a micro-batch along it.
enum class RecomputeType { None = 0, Selective = 1, Full = 2 };

inline constexpr std::array<RecomputeType, 3> kAllRecomputeTypes { RecomputeType::None, RecomputeType::Selective,
    RecomputeType::Full };

// "none", "selective", "full": the spelling of the DynaPipe cost-model keys (tp1_selective).
std::string_view recomputeTypeName(RecomputeType type);
std::optional<RecomputeType> parseRecomputeType(std::string_view name);

// The next stronger type (none -> selective -> full), or nothing at full.
std::optional<RecomputeType> strongerRecompute(RecomputeType type);

} // namespace stratex::planner
