// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/export/export_note.h"
#include "core/megatron/plan_file.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// A Stratex plan (Megatron's space) as a Galvatron plan, for the exports that run on Galvatron's
// per-layer strategies (Galvatron's strategy file, the PaddleNLP Galvatron port's config and launch
// script): every layer gets the plan's TP, DP and recompute, the stages its layer counts.
//
// Galvatron main (PKU-DAIR/Hetu-Galvatron cea12ffb, galvatron/core/runtime/
// hybrid_parallel_config.py and utils/config_utils.py) reads per-layer context parallelism
// ("cp_sizes_enc", "vcp"; ring or zigzag by its runtime argument cp_mode, default zigzag: the
// load-balanced ring Megatron's p2p CP runs) and expert parallelism ("ep_sizes_enc",
// "tp_of_ep_sizes_enc"; comm_groups.py: expert data parallel = world / pp / ep / etp, as
// Megatron's). Ulysses CP (a2a) is Galvatron's use_sp over the layer's TP group, which
// comm_groups.py forbids beside Megatron TP > 1.
//
// Refused, with a stratex::Error naming the file, the target and the dimension: virtual pipeline
// stages (both runtimes run one model chunk per stage); for Galvatron Ulysses beside TP > 1; for
// PaddleNLP ring CP and expert parallelism (the port's fine-grained config has neither: its keys
// are paddle_config.h's). Mapped to the nearest the target has, each an ExportNote:
// ZeRO-1 -> ZeRO-2 (neither has ZeRO-1; ZeRO-2 shards gradients too), selective recompute -> full
// checkpointing of every layer, ZB-H1 -> 1F1B, FP8 -> bf16.
struct GalvatronPlan {
    galvatron::Plan plan; // with cp and Ulysses sp per layer
    galvatron::SearchSettings settings; // the cluster, the model's shape, precision and Megatron-SP
    int ep = 1; // expert parallelism of every MoE layer (ep_sizes_enc), 1 for a dense model
    int tp_of_ep = 1; // its expert tensor parallelism (tp_of_ep_sizes_enc)
    std::vector<ExportNote> notes;
};
GalvatronPlan galvatronPlanFromStrategy(const megatron::PlanFile& plan, std::string_view target);

// Galvatron's strategy file for it: strategyFileText's keys with "ep_sizes_enc" and
// "tp_of_ep_sizes_enc" after "dp_types_enc" for a MoE model with expert parallelism.
std::string galvatronPlanFileText(const GalvatronPlan& plan, const megatron::PlanFile& file);

} // namespace stratex::exporting
