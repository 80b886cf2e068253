// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/megatron/plan_file.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// A Stratex plan (Megatron's space) as a Galvatron plan, for the exports that run on Galvatron's
// per-layer strategies (Galvatron's strategy file, the PaddleNLP Galvatron port's config and launch
// script): every layer gets the plan's TP, DP and recompute, the stages its layer counts.
//
// Refused, with a stratex::Error naming the file, the target and the dimension: virtual pipeline
// stages (both runtimes run one model chunk per stage), context parallelism (their sequence
// parallelism is Ulysses' all-to-all over heads, usp_flag / use_sp, not ring attention), expert
// parallelism (no expert degree). Mapped to the nearest the target has, each said in `warnings`:
// ZeRO-1 -> ZeRO-2 (neither has ZeRO-1; ZeRO-2 shards gradients too), selective recompute -> full
// checkpointing of every layer, ZB-H1 -> 1F1B, FP8 -> bf16.
struct GalvatronPlan {
    galvatron::Plan plan;
    galvatron::SearchSettings settings; // the cluster, the model's shape, precision and Megatron-SP
    std::vector<std::string> warnings;
};
GalvatronPlan galvatronPlanFromStrategy(const megatron::PlanFile& plan, std::string_view target);

} // namespace stratex::exporting
