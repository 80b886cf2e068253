// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/deepspeed_memory.h"

#include <algorithm>

namespace stratex::megatron {

namespace {

constexpr double kMb = 1e6;
constexpr double kBytes16 = 2; // bf16 / fp16 weights and gradients

} // namespace

// Read in deepspeedai/DeepSpeed @ edaa7221 (2026-08-22):
//
// Stages 1 and 2, deepspeed/runtime/zero/stage_1_and_2.py (DeepSpeedZeroOptimizer):
// - bit16_groups_flat: the 16-bit weights, whole on every rank (2 bytes per parameter);
// - single_partition_of_fp32_groups: the fp32 master copy of this rank's partition (4 / d), and
//   Adam's exp_avg / exp_avg_sq on it (8 / d);
// - gradients: process_gradients() -> setup_buckets() allocates the IPG bucket,
//   torch.empty(reduce_bucket_size, dtype=self.dtype) (the 16-bit dtype), and a second one
//   ("double buffers") when overlap_comm is on, in every backward whatever the model's size;
//   copy_grads_in_partition() gathers this rank's reduced gradients into grads_in_partition,
//   torch.empty(sum of the partition's numel, dtype=self.dtype) (2 / d). At stage 2 the other
//   gradients are freed as their bucket is reduced (clear_grad_attribute); at stage 1
//   (reduce_ready_partitions_and_remove_grads reduces only at the accumulation boundary) every
//   16-bit param.grad stays (2 bytes per parameter) and the boundary copies the partition too.
// - step(): flat_grad_partition.to(fp32) makes a 4 / d fp32 gradient for the optimizer step and
//   deletes it after; the activations are gone by then, so it is not part of the backward peak.
//
// Stage 3, deepspeed/runtime/zero/stage3.py (DeepSpeedZeroOptimizer_Stage3):
// - fp16_partitioned_groups_flat: 2 / d of weights; fp32_partitioned_groups_flat 4 / d; Adam 8 / d;
// - grad_partitions_flat_buffer: torch.zeros(sum of partition_numel, dtype=gradient_accumulation_dtype),
//   which deepspeed/runtime/engine.py get_data_types() sets to the model's dtype unless
//   data_types.grad_accum_dtype says otherwise: 2 / d;
// - the IPG bucket: one torch.empty(reduce_bucket_size) per dtype when contiguous_gradients;
// - gathered weights: the layer in compute and the prefetched one (prefetch_bucket_size 5e7 elements
//   ahead), never more than max_live_parameters elements (partitioned_param_coordinator.py).
ModelStateMemory deepSpeedModelState(
    const ParallelStrategy& s, double params, double shard, int layers, const DeepSpeedZeroConfig& config)
{
    ModelStateMemory m;
    const double bucket = deepSpeedReduceBucketBytes(s.zero, config);
    if (s.zero <= 0) {
        // No ZeRO: DeepSpeed's fp16/bf16 optimizers keep 16-bit weights and gradients and the fp32
        // master weights with Adam's moments whole: the ZeRO paper's 2 + 2 + 12.
        m.weights_mb = kBytes16 * params / kMb;
        m.gradients_mb = kBytes16 * params / kMb;
        m.optimizer_mb = 12 * params / kMb;
        return m;
    }
    m.optimizer_mb = 12 * shard / kMb;
    if (s.zero == 3) {
        const double gathered = std::min(params * std::min(1.0, 2.0 / std::max(1, layers)), config.max_live_parameters);
        m.gathered_mb = kBytes16 * gathered / kMb;
        m.weights_mb = kBytes16 * shard / kMb + m.gathered_mb;
        m.gradients_mb = (kBytes16 * shard + bucket) / kMb;
        m.step_transient_mb = deepSpeedStepTransientBytes(s.zero, shard, config) / kMb;
        return m;
    }
    m.weights_mb = kBytes16 * params / kMb;
    // Stage 2: this rank's reduced partition (in grads_in_partition, or in its params' .grad without
    // contiguous_gradients). Stage 1: every param.grad, and at the boundary the contiguous copy.
    const double grads = s.zero == 2
        ? kBytes16 * shard
        : kBytes16 * params + (config.contiguous_gradients ? kBytes16 * shard : 0.0);
    m.gradients_mb = (grads + bucket) / kMb;
    return m;
}

// Stage 3's optimizer step, deepspeed/runtime/zero/stage3.py @ edaa7221: step() (line 2604)
// partitions every gathered parameter (_partition_all_parameters) and then updates one sub-group at
// a time; _prepare_sub_group -> _prepare_fp32_grad_for_sub_group (line 2398) makes
// `self.flatten(self.averaged_gradients[sub_group_id]).to(fp32)`: a 16-bit flat copy of the
// sub-group's gradients (views of grad_partitions_flat_buffer, which stays) and then its fp32 copy,
// both alive at once, 2 + 4 bytes per element; the 16-bit copy is freed, the fp32 one is the fp32
// partition's .grad through the Adam step and released with the sub-group. _create_fp16_sub_groups
// (line 1160) closes a sub-group once its partition elements reach sub_group_size, or takes the
// whole group when it is smaller: the first sub-group holds min(sub_group_size, partition) elements
// (plus at most one parameter's partition, not counted). The IPG bucket is allocated once at
// initialisation (line 732) and stays, in the model state.
double deepSpeedStepTransientBytes(int stage, double shard, const DeepSpeedZeroConfig& config)
{
    if (stage != 3)
        return 0;
    return (kBytes16 + 4) * std::min(config.sub_group_elements, shard);
}

double deepSpeedReduceBucketBytes(int stage, const DeepSpeedZeroConfig& config)
{
    if (stage <= 0 || !config.contiguous_gradients)
        return 0;
    const int buffers = stage < 3 && config.overlapCommFor(stage) ? 2 : 1;
    return buffers * kBytes16 * config.reduce_bucket_elements;
}

} // namespace stratex::megatron
