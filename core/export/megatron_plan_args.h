// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/export/export_note.h"
#include "core/export/megatron_flags.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_file.h"

namespace stratex::exporting {

// Megatron-LM's pretrain_gpt.py arguments for a Stratex plan (a Megatron-space strategy, megatron::
// ParallelStrategy): every dimension has its flag (megatron_flags.h). Where Megatron has no knob
// for what the plan says, the nearest it runs is exported, said in `comments`, and costed again:
// - ZB-H1: Megatron-LM has no zero-bubble schedule (megatron/core/pipeline_parallel/schedules.py
//   runs 1F1B and interleaved 1F1B) -> 1F1B;
// - a MoE model with TP and no sequence parallelism: MoELayer.forward raises during training
//   (moe_layer.py) -> --sequence-parallel;
// - ZeRO with one data-parallel rank (dp x cp = 1): nothing to shard -> plain DDP.
// ZeRO-2 is Megatron-FSDP's optim_grads (gradients and optimizer states sharded); Megatron's
// distributed optimizer alone is ZeRO-1 (whole gradient buffers), and the comments say what it
// would need instead.
struct MegatronPlanArgs {
    MegatronRun run;
    MegatronArgumentList arguments;
    MegatronEnvironment environment;
    std::string model_summary;
    std::vector<std::string> comments; // what was exported differently from the plan, one line each
    std::vector<ExportNote> notes; // every approximation and refusal (comments that are), and the fit

    megatron::ParallelStrategy exported; // what Megatron runs, as a strategy
    std::optional<megatron::Estimate> planned; // the plan as written in the file
    std::optional<megatron::Estimate> recosted; // `exported`, when it differs from the plan
};

// Throws stratex::Error naming every rule of Megatron's the strategy breaks (megatron::strategyProblems)
// on the plan's cluster. `hardware` costs the plan and what was exported (nullptr: not costed).
MegatronPlanArgs megatronPlanArgs(const megatron::PlanFile& plan, const hardware::HardwareModel* hardware);

// "4.404 s/iteration, memory per stage [48496, 47478] MB of 81559 MB (fits)": a prediction in the
// exports' comments and notes; "not costed (the problems)" for a strategy estimate() refuses.
std::string megatronPredictionText(const megatron::Estimate& estimate);

// A bash script: the plan, the predictions (iteration time, memory per stage), the comments, then
// megatronLaunchText for the plan's cluster.
std::string megatronPlanScript(const megatron::PlanFile& plan, const MegatronPlanArgs& args);

} // namespace stratex::exporting
