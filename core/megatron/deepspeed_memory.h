// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include "core/megatron/model_state_memory.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// DeepSpeed's ZeRO configuration defaults that decide what a rank keeps beyond the ZeRO paper's
// 2 + 2 + 12 bytes per parameter (deepspeedai/DeepSpeed @ edaa7221, deepspeed/runtime/zero/config.py
// DeepSpeedZeroConfig; docs/memory-model.md, "DeepSpeed"). Counts are elements, as the config's.
struct DeepSpeedZeroConfig {
    double reduce_bucket_elements = 5e8; // reduce_bucket_size: Field(pp_int(5e8))
    bool contiguous_gradients = true; // contiguous_gradients: bool = True
    // overlap_comm: None resolves to `stage == ZeroStageEnum.weights` (overlap_comm_valid): on at
    // stage 3 only. With it stages 1 and 2 double the reduce bucket.
    std::optional<bool> overlap_comm;
    bool overlapCommFor(int stage) const { return overlap_comm.value_or(stage == 3); }
    double max_live_parameters = 1e9; // stage3_max_live_parameters: Field(pp_int(1e9))
    double sub_group_elements = 1e9; // sub_group_size: Field(pp_int(1e9)) (config.py line 175)
};

// Weights, gradients and optimizer states of one rank under DeepSpeed ZeRO 0-3 with 16-bit
// weights, as DeepSpeed's source keeps them (deepspeed_memory.cpp). `params`: the rank's
// parameters, `shard`: its share over the data-parallel group, `layers`: its transformer layers.
ModelStateMemory deepSpeedModelState(const ParallelStrategy& strategy, double params, double shard, int layers,
    const DeepSpeedZeroConfig& config = {});

// What ZeRO-3's optimizer step allocates beyond the model state, in bytes, for a rank whose
// partition holds `shard` elements: a 16-bit flat copy and an fp32 copy of one sub-group's
// gradients, 6 bytes per element over min(sub_group_size, shard) (deepspeed_memory.cpp). 0 at
// stages 0-2 (their fp32 gradient partition is not counted: docs/memory-model.md, "DeepSpeed").
double deepSpeedStepTransientBytes(int stage, double shard, const DeepSpeedZeroConfig& config = {});

// The bytes of the reduce (IPG) bucket buffers alive during the backward at `stage`.
double deepSpeedReduceBucketBytes(int stage, const DeepSpeedZeroConfig& config = {});

} // namespace stratex::megatron
