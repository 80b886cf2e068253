// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/strategy.h"

namespace stratex::galvatron {

namespace {

std::string notationOf(int pp, int tpsp, int dp, bool zero3, bool checkpoint, bool ulysses)
{
    std::string text = std::to_string(pp) + "-" + std::to_string(tpsp) + (tpsp != 1 ? "*-" : "-") + std::to_string(dp);
    if (zero3)
        text += "f";
    if (checkpoint)
        text += "-c";
    if (ulysses)
        text += "-sp";
    return text;
}

} // namespace

std::string_view dpTypeName(DpType type)
{
    switch (type) {
    case DpType::Ddp:
        return "ddp";
    case DpType::Zero2:
        return "zero2";
    case DpType::Zero3:
        return "zero3";
    }
    return "ddp";
}

std::optional<DpType> parseDpType(std::string_view name)
{
    for (DpType type : { DpType::Ddp, DpType::Zero2, DpType::Zero3 }) {
        if (dpTypeName(type) == name)
            return type;
    }
    return std::nullopt;
}

std::string LayerStrategy::notation() const
{
    return notationOf(pp, tpsp(), dp, dp_type == DpType::Zero3, checkpoint, sp > 1);
}

std::string EmbeddingStrategy::notation() const
{
    return notationOf(pp, tpsp(), dp, dp_type == DpType::Zero3, false, sp > 1);
}

EmbeddingStrategy projection(const LayerStrategy& layer)
{
    return { layer.pp, layer.tp, layer.sp, layer.cp, layer.dp, layer.dp_type };
}

} // namespace stratex::galvatron
