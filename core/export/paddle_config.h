// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/export/export_note.h"
#include "core/model/model_description.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// The PaddleNLP Galvatron port's ./configs/fine_grained_config.json (docs/galvatron-search.md
// §9.3): pp_size, vtp, vsp_flag, embed_sdp, global_batch_size, gradient_accumulation_steps and the
// per-layer lists dp_size_list, sharding_stage_list (0 DDP, 2 ZeRO-2, 3 ZeRO-3), tp_size_list,
// usp_flag_list (Ulysses), recompute_list, pp_stage_idx_list - all comma-separated strings.
nlohmann::ordered_json paddleFineGrainedConfig(const galvatron::Plan& plan);
std::string paddleFineGrainedConfigText(const galvatron::Plan& plan);

// The train-script values seed 004 derives from that file (first comma-separated value of
// dp_size_list / tp_size_list, not the first character).
struct PaddleParallelArgs {
    int pipeline_parallel_degree = 1;
    int sharding_parallel_degree = 1; // first value of dp_size_list
    int tensor_parallel_degree = 1; // first value of tp_size_list
    bool recompute = false; // any 1 in recompute_list
    int gradient_accumulation_steps = 1;
    int per_device_train_batch_size = 1; // global / accumulation / sharding degree, rounded up
    bool per_device_batch_exact = true; // false when that division is not whole
    int sharding_stage = 2; // of the first layer: 0 (DDP), 2 or 3
    bool ulysses = false; // any 1 in usp_flag_list
    int data_parallel = 1; // first value of dp_size_list: the per-device batch divides by it
};
// What PARALLEL_ARGS say of sharding: a DDP first layer (stage 0) is PaddleNLP's no-sharding default,
// --sharding "" with --sharding_parallel_degree 1 (TrainingArguments derives the data-parallel
// degree from the world size); otherwise "stage2" / "stage3" over dp_size_list's first value.
std::string paddleShardingOption(const PaddleParallelArgs& args);
PaddleParallelArgs paddleParallelArgs(const galvatron::Plan& plan);

// A PaddleNLP launch script in the spirit of the port's train_qwen_fine_grained.sh, for its
// auto-parallel trainer: the model (every field the port's MODEL_ARGS take, --intermediate_size and
// --num_key_value_heads included), flash attention on (--use_flash_attention true, as the port's
// scripts run it: without it the model stores the sequence x sequence scores), --do_train / --max_steps / --enable_auto_parallel 1 /
// --to_static 1, the batch and parallel arguments of the plan, the data (--input_dir, --split)
// and the fine-grained runtime pointed at the config. It reads the node count and rank from a
// cluster launcher's PADDLE_TRAINERS_NUM / PADDLE_TRAINER_ID and then unsets the launcher's
// PADDLE_* variables (as the port's multi-node scripts do); MASTER_ADDR (several nodes) and
// INPUT_DIR are required, the script stops with a message without them.
struct PaddleScriptOptions {
    std::string configPath = "./configs/fine_grained_config.json";
    std::string trainer = "./train_qwen_fine_grained.py";
    std::string modelType = "llama_fine_grained_final";
};
struct PaddleScript {
    std::string text;
    // The model is not the port's Llama, the batch is rounded, ZeRO-0, and `planNotes`: every one
    // also a "# NOTE:" line of the script.
    std::vector<ExportNote> notes;
};
PaddleScript paddleScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const PaddleScriptOptions& options = {},
    const std::vector<ExportNote>& planNotes = {});
std::string paddleLaunchScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const PaddleScriptOptions& options = {});

} // namespace stratex::exporting
