// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The FP8 scaling recipe a plan runs (strategy key "fp8_recipe", setting --fp8-recipe;
// docs/kernels.md §8, "The recipe"): Megatron-Core's --fp8-recipe, Megatron-Bridge's
// mixed_precision.fp8_recipe, carried out by Transformer Engine. What each recipe's casts cost is
// hardware::teFp8CastS (core/hardware/fp8_gemm.h).

#include <optional>
#include <string>
#include <string_view>

#include "core/hardware/fp8_gemm.h"

namespace stratex::megatron {

struct ParallelStrategy;

// Megatron-Core's names (megatron/core/enums.py Fp8Recipe, transformer_config.py fp8_recipe @
// d98e8a64; Megatron-Bridge's MixedPrecisionConfig.fp8_recipe spells them alike). "custom" (a
// user's quantizer factory) is not offered.
enum class Fp8Recipe {
    Default, // the framework's default (resolvedFp8Recipe)
    Delayed, // DelayedScaling: the scale from the amax history
    Tensorwise, // Float8CurrentScaling: per-tensor current scaling
    Mxfp8, // MXFP8BlockScaling: 1 x 32 blocks, Blackwell
    Blockwise, // Float8BlockScaling: 1 x 128 / 128 x 128 blocks, Hopper
};

std::string_view fp8RecipeName(Fp8Recipe value); // "default", "delayed", "tensorwise", "mxfp8", "blockwise"
std::optional<Fp8Recipe> parseFp8Recipe(std::string_view name);
std::string fp8RecipeChoices(); // for messages

// The recipe the strategy runs, Default resolved to its framework's default:
// - Megatron-Core: delayed (TransformerConfig.fp8_recipe = "delayed", transformer_config.py @
//   d98e8a64; before the field existed, core_r0.8.0 and TE 1.x, delayed scaling was the only
//   recipe), except with layernorm or moe_act selective recompute, which delayed scaling refuses
//   ("Delayed scaling does not support moe_act and layernorm recompute for fp8",
//   transformer_config.py __post_init__): tensorwise, what the Megatron-LM export writes then;
// - Megatron-Bridge: tensorwise (MixedPrecisionConfig.fp8_recipe = "tensorwise",
//   src/megatron/bridge/training/mixed_precision.py @ 067f987d; its H100 performance configs
//   run fp8_cs, current scaling);
// - torchtitan, DeepSpeed, Composer: tensorwise, the per-tensor dynamic scaling their per-GEMM
//   charge assumes (hardware::kAssumedFp8Scaling: torchao's Float8Linear tensorwise recipe).
// An explicit recipe is kept.
Fp8Recipe resolvedFp8Recipe(const ParallelStrategy& strategy);
// The precision as plans print it: "bf16", "fp16", or "fp8 (delayed recipe)" with the resolved
// recipe, so that a plan's text says which casts it was costed with.
std::string precisionLabel(const ParallelStrategy& strategy);
// The resolved recipe as the cost model's scaling.
hardware::Fp8Scaling fp8Scaling(Fp8Recipe resolved);

// Why the strategy cannot run its recipe; empty when it can (or it names none):
// - a recipe without precision fp8;
// - a recipe other than tensorwise outside Megatron-Core and Megatron-Bridge (the other frameworks
//   have no Transformer Engine recipe switch: torchtitan's float8 converter scales per tensor or
//   per row dynamically, torchtitan/components/quantization/float8.py @ b5bcd76c);
// - delayed with layernorm or moe_act selective recompute (transformer_config.py, above).
// The GPU's part (MXFP8 on Blackwell, blockwise from Hopper) is gpuSupportProblems'.
std::string fp8RecipeProblem(const ParallelStrategy& strategy);

} // namespace stratex::megatron
