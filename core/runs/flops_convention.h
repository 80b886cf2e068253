// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string_view>

#include "core/model/model_description.h"

namespace stratex::runs {

// How a publication counts the FLOPs behind its "TFLOP/s per GPU" and MFU figures (the formulas
// and their sources: resources/reference-runs/README.md). Published throughput converts back to
// iteration time only through the publisher's own count.
enum class FlopsConvention {
    Narayanan2021, // 96·B·s·L·h²·(1 + s/6h + V/16Lh): GEMMs incl. the full-recompute forward
    Korthikanti2022, // 72·B·s·L·h²·(1 + s/6h + V/12Lh): model FLOPs, no recompute
    Llama3, // PaLM's 6·N(non-embedding) + 12·L·h·s per token
    MegatronCore2024, // num_floating_point_operations @ core_r0.8.0, non-causal
    MegatronCore2025, // the same function in 2025: causal attention, MoE-aware
    NemoModel, // NeMo flops_formulas.py (per family)
    MbridgeModel, // Megatron-Bridge flop_utils.py: as MegatronCore2025
    MosaicMl, // llm-foundry: 6·N(all) + 12·L·h·s per token
    SixNd, // 6·N·tokens
};

std::optional<FlopsConvention> parseFlopsConvention(std::string_view name);

// FLOPs of one iteration of `globalBatch` sequences of model.seq_length tokens, counted as the
// convention counts them.
double conventionFlops(FlopsConvention convention, const model::ModelDescription& model, double globalBatch);

// The peak a convention's MFU divides by when the publication fixes it (A100: 312, H100: 989 or
// 989.5 TFLOP/s); empty when the GPU's own peak applies.
std::optional<double> conventionPeakTflops(FlopsConvention convention, std::string_view gpuName);

} // namespace stratex::runs
