// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/export/pytorch_exports.h"
#include "core/megatron/plan_file.h"

namespace stratex::exporting {

// The pipeline order a Stratex strategy runs, per pipeline rank, as the cost model simulated it
// (core/sim: 1F1B, Megatron's interleaved 1F1B over vpp chunks, ZB-H1), in
// torch.distributed.pipelining's action terms: the stage is the model chunk's global index
// (chunk j of rank r is stage j * pp + r: the "loop" placement of looped schedules such as
// Interleaved1F1B); F forward, B full backward, or under ZB-H1 I (input gradient) and W (weight
// gradient).
std::vector<std::vector<PipelineAction>> pipelineOrder(const megatron::ParallelStrategy& strategy);
// The same as the compute-only CSV PipelineScheduleMulti._load_csv / _PipelineScheduleRuntime._load_csv
// read: one row per rank.
std::string pipelineScheduleCsv(const megatron::ParallelStrategy& strategy);

// A torchtitan v0.2 TOML job config for a Stratex plan: [parallelism] (degrees; FSDP by ZeRO stage;
// the schedule: 1F1B, Interleaved1F1B over pp x vpp model parts, ZB-H1 as the CSV above through
// pipeline_parallel_schedule_csv), [activation_checkpoint] (full or op-level selective),
// [training] (batches, sequence length), [model] where torchtitan ships the architecture, FP8 as
// torchao's float8 converter. What torchtitan does otherwise is commented and is a note of the
// export (export_note.h).
TorchtitanConfig torchtitanPlanConfig(const megatron::PlanFile& plan);

} // namespace stratex::exporting
