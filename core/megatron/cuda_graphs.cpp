// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/cuda_graphs.h"

#include "core/common/enum_names.h"

namespace stratex::megatron {

namespace {

constexpr EnumNames<CudaGraphs, 6> kCudaGraphsNames { { { CudaGraphs::None, "none" }, { CudaGraphs::Attention, "attn" },
    { CudaGraphs::MoeRouter, "moe-router" }, { CudaGraphs::AttentionMoeRouter, "attn-moe-router" },
    { CudaGraphs::Layer, "layer" }, { CudaGraphs::FullIteration, "full-iteration" } } };

// A captured region replays with one host operation, an uncaptured one issues all of its own.
int region(bool captured, int ops)
{
    return captured && ops > 0 ? 1 : ops;
}

} // namespace

std::string_view cudaGraphsName(CudaGraphs value)
{
    return enumName(kCudaGraphsNames, value);
}

std::optional<CudaGraphs> parseCudaGraphs(std::string_view name)
{
    return parseEnumName(kCudaGraphsNames, name);
}

std::string cudaGraphsChoices()
{
    return "\"none\", \"attn\", \"moe-router\", \"attn-moe-router\", \"layer\" or \"full-iteration\"";
}

std::string megatronCudaGraphModules(CudaGraphs value)
{
    switch (value) {
    case CudaGraphs::Attention:
        return "attn";
    case CudaGraphs::MoeRouter:
        return "moe_router moe_preprocess"; // moe_preprocess only with moe_router (transformer_config.py)
    case CudaGraphs::AttentionMoeRouter:
        return "attn moe_router moe_preprocess";
    case CudaGraphs::None:
    case CudaGraphs::Layer:
    case CudaGraphs::FullIteration:
        break;
    }
    return {};
}

int issuedHostOps(CudaGraphs graphs, const LayerHostOps& ops, bool moeLayer)
{
    switch (graphs) {
    case CudaGraphs::None:
        return ops.total();
    case CudaGraphs::FullIteration:
        return 0;
    case CudaGraphs::Layer:
        // The whole layer is one graph; a MoE layer's dropless MLP side cannot be captured.
        return moeLayer ? region(true, ops.attention) + ops.router + ops.preprocess + ops.rest
                        : region(true, ops.total());
    case CudaGraphs::Attention:
        return region(true, ops.attention) + ops.router + ops.preprocess + ops.rest;
    case CudaGraphs::MoeRouter:
        return ops.attention + region(moeLayer, ops.router + ops.preprocess) + ops.rest;
    case CudaGraphs::AttentionMoeRouter:
        return region(true, ops.attention) + region(moeLayer, ops.router + ops.preprocess) + ops.rest;
    }
    return ops.total();
}

} // namespace stratex::megatron
