// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/cost_settings.h"

namespace stratex::galvatron {

std::string_view mixedPrecisionName(MixedPrecision precision)
{
    switch (precision) {
    case MixedPrecision::Bf16:
        return "bf16";
    case MixedPrecision::Fp16:
        return "fp16";
    case MixedPrecision::Fp32:
        return "fp32";
    }
    return "bf16";
}

std::optional<MixedPrecision> parseMixedPrecision(std::string_view name)
{
    for (MixedPrecision p : { MixedPrecision::Bf16, MixedPrecision::Fp16, MixedPrecision::Fp32 }) {
        if (mixedPrecisionName(p) == name)
            return p;
    }
    return std::nullopt;
}

std::string_view pipelineTypeName(PipelineType type)
{
    return type == PipelineType::GPipe ? "gpipe" : "pipedream_flush";
}

std::optional<PipelineType> parsePipelineType(std::string_view name)
{
    if (name == "pipedream_flush")
        return PipelineType::PipeDreamFlush;
    if (name == "gpipe")
        return PipelineType::GPipe;
    return std::nullopt;
}

} // namespace stratex::galvatron
