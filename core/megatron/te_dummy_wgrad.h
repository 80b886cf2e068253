// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/megatron/parallel_strategy.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// The 16-bit placeholder weight gradients that Transformer Engine caches on one GPU of a
// Megatron-Core / Megatron-Bridge stage, in bytes (te_dummy_wgrad.cpp; docs/memory-model.md,
// "Megatron-Core"): one tensor per distinct weight shape of the stage's transformer layers, and the
// output layer's [vocabulary / tp, h] on the last stage (`lastStage`); without gradient-accumulation
// fusion, or with a Transformer Engine before 2.3 (teCachesDummyWgrads), only the output layer's
// weight gradient, alive at the last stage's peak. 0 for other
// frameworks, for Megatron-FSDP (zero >= 2) and for a stage without transformer layers and output layer.
double teDummyWgradBytes(
    const model::ModelDescription& model, const ParallelStrategy& strategy, int stageLayers, bool lastStage);

// Whether the Transformer Engine release `teVersion` (ParallelStrategy::te_version) caches the
// placeholders: 2.3 on, and 0 (not given: the current release); not -1 (no TE) nor before 2.3.
bool teCachesDummyWgrads(int teVersion);
// "2.3" -> 203, "2.9.0.dev0+7e45be73" -> 209, "none" -> -1; nullopt for anything else.
std::optional<int> parseTeVersion(std::string_view text);
std::string teVersionName(int teVersion); // 203 -> "2.3", -1 -> "none"

} // namespace stratex::megatron
