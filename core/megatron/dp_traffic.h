// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A pipeline stage's data-parallel collectives, as Megatron-Core's DDP and distributed optimizer
// and FSDP2 / Megatron-FSDP issue them (docs/collectives.md): what the estimate (estimate.cpp)
// hides under the stage's compute. Internal to core/megatron.

#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// A stage's data-parallel collectives as the frameworks issue them (docs/collectives.md).
struct DpTraffic {
    double grad_s = 0; // ZeRO 0-2: all gradient buckets, once per iteration
    double gather_total_s = 0; // ZeRO 1-2: all parameter buckets, once per iteration
    double last_bucket_s = 0; // the last gradient bucket's reduce
    double first_bucket_s = 0; // the first parameter bucket's gather
    double gather_s = 0; // ZeRO 3: one layer's all-gather
    double reduce_s = 0; // ZeRO 3: one layer's reduce-scatter
};

// The collectives of one stage holding denseParams and expertParams (per GPU, before sharding)
// in `layers` layers, over its dense and expert data-parallel groups, times `scale`.
DpTraffic dpTraffic(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale);

} // namespace stratex::megatron
