// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/json_reader.h"
#include "core/model/model_description.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// A Megatron-space strategy as reference runs, Stratex plan files and exports carry it: the keys of
// resources/reference-runs/README.md ("tp", "pp", "vpp", "cp", "cp_comm_type", "ep", "etp", "dp",
// "sequence_parallel", "zero", "recompute", "recompute_num_layers", "recompute_modules", "micro_batch_size",
// "global_batch_size", "schedule", "first_stage_layers", "last_stage_layers", "precision",
// "overlap_grad_reduce", "flash_attention", "attention_kernel", "compile", "cuda_graphs", "fp8_recipe", "framework",
// "main_grads_dtype", "optimizer_state_dtype", "cross_entropy_loss_fusion", "tp_async_backward"). Every
// field is written, but "tp_comm_overlap", "gradient_accumulation_fusion", "cross_entropy_loss_fusion",
// "tp_async_backward", "attention_kernel", "compile", "cuda_graphs" and "fp8_recipe" only away from their
// defaults.
nlohmann::ordered_json toJson(const ParallelStrategy& strategy);
// Whether `key` is one of the strategy object's keys (for a plan file's root, where one would be ignored).
bool isStrategyKey(std::string_view key);

// Reads a strategy object for `model` on `worldSize` GPUs. Only "global_batch_size" is required;
// each value left out takes the default a Megatron user would get on that shape (dp from the world
// size, SP on when tp > 1, the distributed optimizer when data-parallel, micro-batch 1, no
// recompute, bf16, the smallest chunk count that divides the stages for "interleaved" without
// "vpp"), and each such default is said in `assumptions` when given. "schedule": "gpipe" is read
// as 1F1B (same memory peak bound, the makespan of a flush schedule). Malformed values are an
// InputError naming the file and key; the rules of Megatron are strategyProblems()'s, not this.
ParallelStrategy readStrategy(const JsonView& object, const model::ModelDescription& model, long long worldSize,
    std::vector<std::string>* assumptions = nullptr);

} // namespace stratex::megatron
