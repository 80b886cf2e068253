// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stratex::galvatron {

enum class MixedPrecision { Bf16, Fp16, Fp32 };
enum class PipelineType { PipeDreamFlush, GPipe }; // 1F1B or all-forward-all-backward

std::string_view mixedPrecisionName(MixedPrecision precision);
std::optional<MixedPrecision> parseMixedPrecision(std::string_view name);
std::string_view pipelineTypeName(PipelineType type);
std::optional<PipelineType> parsePipelineType(std::string_view name);

// How the per-replica micro-batch is counted when gbsz / chunks / dp is not a whole number.
enum class BatchRounding {
    // The busiest replica's micro-batch, ceil(gbsz / (chunks * dp)): what a step really costs.
    Honest,
    // Galvatron main's gbsz // chunks // dp: costs fewer samples than the step trains on.
    GalvatronFloor,
};

// The transformer shape the cost model scales with (Galvatron's model_info + seq_length).
struct ModelShape {
    std::string name = "llama2-7b";
    int seq_length = 2048;
    int hidden_size = 4096;
    int num_layers = 32;
    int num_heads = 32;
    int vocab_size = 32000;
};

// The settings the cost formulas read (a subset of the search settings).
struct CostSettings {
    int world = 8;
    ModelShape model;
    MixedPrecision mixed_precision = MixedPrecision::Bf16;
    bool sequence_parallel = true; // Megatron-SP: "_sp" memory keys, ckpt activation / tp, inter-layer cost
    bool global_memory_buffer = true;
    bool async_grad_reduce = true;
    PipelineType pipeline_type = PipelineType::PipeDreamFlush;
    double costmodel_coe = 1.0; // Galvatron's debug_costmodel_coe, scales per-layer time
    BatchRounding batch_rounding = BatchRounding::Honest;

    bool mixed() const { return mixed_precision != MixedPrecision::Fp32; }
};

} // namespace stratex::galvatron
