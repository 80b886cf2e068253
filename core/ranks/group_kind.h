// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "core/ranks/orthogonal_grid.h"

namespace stratex::ranks {

// Every process-group type Megatron-LM builds, named by Megatron's own tokens.
enum class GroupKind {
    Tp,
    Cp,
    Dp,
    Pp,
    DpCp,
    TpPp,
    TpDp,
    TpDpCp,
    TpCp,
    Embedding,
    PositionEmbedding,
    ExpertTp,
    ExpertEp,
    ExpertDp,
    ExpertTpEp,
    ExpertTpEpPp,
};
inline constexpr int kGroupKindCount = 16;

inline constexpr std::array<GroupKind, kGroupKindCount> kAllGroupKinds {
    GroupKind::Tp,
    GroupKind::Cp,
    GroupKind::Dp,
    GroupKind::Pp,
    GroupKind::DpCp,
    GroupKind::TpPp,
    GroupKind::TpDp,
    GroupKind::TpDpCp,
    GroupKind::TpCp,
    GroupKind::Embedding,
    GroupKind::PositionEmbedding,
    GroupKind::ExpertTp,
    GroupKind::ExpertEp,
    GroupKind::ExpertDp,
    GroupKind::ExpertTpEp,
    GroupKind::ExpertTpEpPp,
};

enum class Generator { Decoder, Expert, PipelineEnds };

struct GroupKindInfo {
    GroupKind kind;
    std::string_view name; // "tp", "dp-cp", "expert-tp-ep", ...
    Generator generator;
    DimMask mask; // dimensions inside the group (for Embedding kinds: the pp group they come from)
    std::string_view description; // what Megatron uses the group for
};

const GroupKindInfo& info(GroupKind kind);
std::string_view groupKindName(GroupKind kind);
std::optional<GroupKind> groupKindFromName(std::string_view name);

} // namespace stratex::ranks
