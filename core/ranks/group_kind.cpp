// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/group_kind.h"

namespace stratex::ranks {

namespace {
constexpr DimMask kTp = maskOf(Dim::Tp);
constexpr DimMask kCp = maskOf(Dim::Cp);
constexpr DimMask kEp = maskOf(Dim::Ep);
constexpr DimMask kDp = maskOf(Dim::Dp);
constexpr DimMask kPp = maskOf(Dim::Pp);

constexpr std::array<GroupKindInfo, kGroupKindCount> kInfo { {
    { GroupKind::Tp, "tp", Generator::Decoder, kTp, "tensor-parallel all-reduce / all-gather" },
    { GroupKind::Cp, "cp", Generator::Decoder, kCp, "context-parallel attention exchange" },
    { GroupKind::Dp, "dp", Generator::Decoder, kDp, "data-parallel replicas" },
    { GroupKind::Pp, "pp", Generator::Decoder, kPp, "pipeline send/recv between stages" },
    { GroupKind::DpCp, "dp-cp", Generator::Decoder, kDp | kCp,
        "gradient reduction and distributed-optimizer sharding" },
    { GroupKind::TpPp, "tp-pp", Generator::Decoder, kTp | kPp, "model-parallel group (one model replica)" },
    { GroupKind::TpDp, "tp-dp", Generator::Decoder, kTp | kDp, "tensor and data parallel" },
    { GroupKind::TpDpCp, "tp-dp-cp", Generator::Decoder, kTp | kDp | kCp, "tensor, data and context parallel" },
    { GroupKind::TpCp, "tp-cp", Generator::Decoder, kTp | kCp, "tensor and context parallel" },
    { GroupKind::Embedding, "embedding", Generator::PipelineEnds, kPp,
        "word-embedding gradient all-reduce (first and last stage)" },
    { GroupKind::PositionEmbedding, "position-embedding", Generator::PipelineEnds, kPp,
        "position-embedding group (first stage)" },
    { GroupKind::ExpertTp, "expert-tp", Generator::Expert, kTp, "expert tensor parallel" },
    { GroupKind::ExpertEp, "expert-ep", Generator::Expert, kEp, "expert parallel (token all-to-all)" },
    { GroupKind::ExpertDp, "expert-dp", Generator::Expert, kDp, "expert data parallel (expert gradients)" },
    { GroupKind::ExpertTpEp, "expert-tp-ep", Generator::Expert, kTp | kEp, "expert tensor and expert parallel" },
    { GroupKind::ExpertTpEpPp, "expert-tp-ep-pp", Generator::Expert, kTp | kEp | kPp,
        "expert tensor, expert and pipeline parallel" },
} };
} // namespace

const GroupKindInfo& info(GroupKind kind)
{
    return kInfo[static_cast<int>(kind)];
}

std::string_view groupKindName(GroupKind kind)
{
    return info(kind).name;
}

std::optional<GroupKind> groupKindFromName(std::string_view name)
{
    for (const GroupKindInfo& entry : kInfo) {
        if (entry.name == name)
            return entry.kind;
    }
    return std::nullopt;
}

} // namespace stratex::ranks
