// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/megatron/parallel_strategy.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// The 16-bit placeholder weight gradients that Transformer Engine caches on one GPU of a
// Megatron-Core / Megatron-Bridge stage, in bytes (te_dummy_wgrad.cpp; docs/memory-model.md,
// "Megatron-Core"): one tensor per distinct weight shape of the stage's transformer layers, and the
// output layer's [vocabulary / tp, h] on the last stage (`lastStage`); without gradient-accumulation
// fusion only the output layer's weight gradient, alive at the last stage's peak. 0 for other
// frameworks, for Megatron-FSDP (zero >= 2) and for a stage without transformer layers and output layer.
double teDummyWgradBytes(
    const model::ModelDescription& model, const ParallelStrategy& strategy, int stageLayers, bool lastStage);

} // namespace stratex::megatron
