// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/paddle_config.h"

#include <functional>

#include "core/common/json_output.h"
#include "core/export/shell_quote.h"

namespace stratex::exporting {

namespace {

std::string perLayer(const galvatron::Plan& plan, const std::function<int(int layer, const galvatron::LayerStrategy&)>& value)
{
    std::string text;
    for (std::size_t i = 0; i < plan.layers.size(); ++i) {
        if (i > 0)
            text += ',';
        text += std::to_string(value(int(i), plan.layers[i]));
    }
    return text;
}

int shardingStage(galvatron::DpType type)
{
    switch (type) {
    case galvatron::DpType::Ddp:
        return 0;
    case galvatron::DpType::Zero2:
        return 2;
    case galvatron::DpType::Zero3:
        return 3;
    }
    return 0;
}

std::string boolText(bool value)
{
    return value ? "true" : "false";
}

} // namespace

nlohmann::ordered_json paddleFineGrainedConfig(const galvatron::Plan& plan)
{
    nlohmann::ordered_json json;
    json["pp_size"] = plan.pp;
    json["vtp"] = plan.vtp();
    json["vsp_flag"] = plan.vsp();
    json["embed_sdp"] = plan.embedSdp();
    json["global_batch_size"] = plan.gbsz;
    json["gradient_accumulation_steps"] = plan.chunks;
    json["dp_size_list"] = perLayer(plan, [](int, const galvatron::LayerStrategy& s) { return s.dp; });
    json["sharding_stage_list"]
        = perLayer(plan, [](int, const galvatron::LayerStrategy& s) { return shardingStage(s.dp_type); });
    json["tp_size_list"] = perLayer(plan, [](int, const galvatron::LayerStrategy& s) { return s.tpsp(); });
    json["usp_flag_list"] = perLayer(plan, [](int, const galvatron::LayerStrategy& s) { return s.sp > 1 ? 1 : 0; });
    json["recompute_list"] = perLayer(plan, [](int, const galvatron::LayerStrategy& s) { return s.checkpoint ? 1 : 0; });
    json["pp_stage_idx_list"]
        = perLayer(plan, [&](int layer, const galvatron::LayerStrategy&) { return plan.stageOf(layer); });
    return json;
}

std::string paddleFineGrainedConfigText(const galvatron::Plan& plan)
{
    return jsonText(paddleFineGrainedConfig(plan), 4, "the PaddleNLP configuration");
}

PaddleParallelArgs paddleParallelArgs(const galvatron::Plan& plan)
{
    PaddleParallelArgs args;
    args.pipeline_parallel_degree = plan.pp;
    if (!plan.layers.empty()) {
        args.data_parallel = plan.layers.front().dp;
        args.tensor_parallel_degree = plan.layers.front().tpsp();
        args.sharding_stage = shardingStage(plan.layers.front().dp_type);
        args.sharding_parallel_degree = args.sharding_stage > 0 ? args.data_parallel : 1;
    }
    for (const galvatron::LayerStrategy& s : plan.layers) {
        args.recompute = args.recompute || s.checkpoint;
        args.ulysses = args.ulysses || s.sp > 1;
    }
    args.gradient_accumulation_steps = plan.chunks;
    const long long perStep = static_cast<long long>(plan.chunks) * args.data_parallel;
    args.per_device_train_batch_size = int((plan.gbsz + perStep - 1) / perStep);
    args.per_device_batch_exact = plan.gbsz % perStep == 0;
    return args;
}

std::string paddleShardingOption(const PaddleParallelArgs& args)
{
    return args.sharding_stage > 0 ? "stage" + std::to_string(args.sharding_stage) : std::string();
}

PaddleScript paddleScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const PaddleScriptOptions& options, const std::vector<ExportNote>& planNotes)
{
    PaddleScript script;
    const PaddleParallelArgs args = paddleParallelArgs(plan);
    std::string gpus;
    for (int g = 0; g < settings.num_gpus_per_node; ++g)
        gpus += (g ? "," : "") + std::to_string(g);
    const bool fp16 = settings.mixed_precision == galvatron::MixedPrecision::Fp16;
    const bool bf16 = settings.mixed_precision == galvatron::MixedPrecision::Bf16;
    const bool multiNode = settings.num_nodes > 1;

    // The port's llama_fine_grained_final is a Llama: SwiGLU, RMSNorm, RoPE, dense MLP.
    std::vector<std::string> notes;
    if (model.mlp != model::MlpKind::Gated || model.norm != model::NormKind::RmsNorm
        || model.position != model::PositionEmbedding::Rope)
        notes.push_back("the port's " + options.modelType + " is a Llama (SwiGLU, RMSNorm, RoPE); " + model.name
            + " is not: the run would train another architecture");
    if (model.moe)
        notes.push_back("the port's " + options.modelType + " has no mixture of experts; " + model.name
            + "'s experts would train as a dense MLP");
    if (model.mla || model.qk_norm || model.qkv_bias || model.rope_scaling || model.rotary_base != 10000)
        notes.push_back("the port's MODEL_ARGS take no RoPE base, RoPE scaling, QK norm, Q/K/V bias or "
                        "multi-latent attention; "
            + model.name + " has some: the run takes them from the port's model config, not from the plan");
    if (model.mtp_num_layers > 0)
        notes.push_back("the port has no multi-token prediction; the plan costs " + std::to_string(model.mtp_num_layers)
            + " MTP module(s) on the last stage, which the run does not train");
    for (const std::string& note : notes)
        addExportNote(script.notes, ExportNoteKind::Approximation, "model", "PaddleNLP: " + note);
    if (args.sharding_stage == 0 && args.data_parallel > 1)
        addExportNote(script.notes, ExportNoteKind::Approximation, "strategy.zero",
            "PaddleNLP: DDP (ZeRO-0) written as --sharding \"\" and --sharding_parallel_degree 1 (no sharding; "
            "the per-layer stages of the config say 0); the port's reading of --sharding_stage_level 0 is its own");
    if (!args.per_device_batch_exact)
        addExportNote(script.notes, ExportNoteKind::Approximation, "global_batch_size",
            "PaddleNLP: the per-device batch " + std::to_string(plan.gbsz) + " / " + std::to_string(plan.chunks)
                + " / " + std::to_string(args.data_parallel)
                + " is not whole and is rounded up: the run trains on a larger global batch");
    for (const ExportNote& note : planNotes)
        addExportNote(script.notes, note.kind, note.field, note.text);

    std::string s;
    s += "#!/usr/bin/env bash\n";
    s += "# PaddleNLP auto-parallel launch of a Galvatron strategy (the PaddleNLP Galvatron port's fine-grained\n";
    s += "# runtime), written by Stratex.\n";
    s += "# "
        + commentLine(model.name + ": " + std::to_string(model.num_layers) + " layers, hidden "
            + std::to_string(model.hidden_size) + ", seq " + std::to_string(model.seq_length) + "; "
            + std::to_string(settings.num_nodes) + " node(s) x " + std::to_string(settings.num_gpus_per_node) + " GPUs")
        + "\n";
    s += "# "
        + commentLine("plan: pp " + std::to_string(plan.pp) + ", chunks " + std::to_string(plan.chunks)
            + ", global batch " + std::to_string(plan.gbsz) + "; layers " + plan.layerSummary())
        + "\n";
    s += "# Per-layer choices live in " + commentLine(options.configPath) + "; the arguments below follow seed 004:\n";
    s += "#   pipeline_parallel_degree = pp_size, sharding/tensor_parallel_degree = the first comma-separated\n";
    s += "#   value of dp_size_list / tp_size_list (sharding degree 1 and --sharding \"\" for DDP: no sharding),\n";
    s += "#   recompute = any 1 in recompute_list,\n";
    s += "#   per_device_train_batch_size = global_batch_size / gradient_accumulation_steps / dp_size.\n";
    if (!args.per_device_batch_exact)
        s += "# NOTE: " + std::to_string(plan.gbsz) + " / " + std::to_string(plan.chunks) + " / "
            + std::to_string(args.data_parallel) + " is not whole: per_device_train_batch_size is rounded up.\n";
    for (const std::string& note : notes)
        s += "# NOTE: " + commentLine(note) + ".\n";
    for (const ExportNote& note : planNotes)
        s += "# NOTE: " + commentLine(note.text) + "\n";
    s += "# Run it on every node (a cluster launcher sets PADDLE_TRAINERS_NUM and PADDLE_TRAINER_ID) with\n";
    if (multiNode)
        s += "#   MASTER_ADDR  the address of the first node (required),\n";
    s += "#   INPUT_DIR    the preprocessed training data, *_idx.npz / .idx files (required),\n";
    s += "#   and optionally MAX_STEPS (10000), SPLIT (949,50,1), "
        + std::string(multiNode ? "MASTER_PORT (36677), " : "") + "PYTHON, TASK_NAME, START_RANK / END_RANK.\n";
    s += "set -euo pipefail\n\n";
    s += "nnodes=${PADDLE_TRAINERS_NUM:-" + std::to_string(settings.num_nodes) + "}\n";
    s += "rank=${PADDLE_TRAINER_ID:-0}\n";
    s += "# A launcher's PADDLE_* variables would override those paddle.distributed.launch sets for its workers.\n";
    s += "unset PADDLE_ELASTIC_JOB_ID PADDLE_TRAINER_ENDPOINTS DISTRIBUTED_TRAINER_ENDPOINTS FLAGS_START_PORT \\\n";
    s += "    PADDLE_ELASTIC_TIMEOUT PADDLE_TRAINERS_NUM PADDLE_TRAINER_ID PADDLE_WORKERS_IP_PORT_LIST PADDLE_TRAINERS "
         "\\\n";
    s += "    PADDLE_NUM_GRADIENT_SERVERS\n";
    s += "START_RANK=${START_RANK:-0}\n";
    s += "END_RANK=${END_RANK:-" + std::to_string(settings.num_nodes) + "}\n";
    s += "if [[ $rank -lt $START_RANK || $rank -ge $END_RANK ]]; then\n    exit 0\nfi\n";
    s += "rank=$((rank - START_RANK))\n";
    s += "nnodes=$((END_RANK - START_RANK))\n";
    if (multiNode) {
        s += "master=${MASTER_ADDR:?set MASTER_ADDR to the address of the first node}\n";
        s += "port=${MASTER_PORT:-36677}\n";
    }
    s += "input_dir=${INPUT_DIR:?set INPUT_DIR to the preprocessed training data (*_idx.npz / .idx files)}\n";
    s += "interpreter=${PYTHON:-python}\n";
    s += "task_name=${TASK_NAME:-stratex_fine_grained}\n\n";
    s += "MODEL_ARGS=(\n";
    s += "    --model_type " + shellQuote(options.modelType) + "\n";
    s += "    --num_hidden_layers " + std::to_string(model.num_layers) + "\n";
    s += "    --intermediate_size " + std::to_string(model.ffn_hidden_size) + "\n";
    s += "    --vocab_size " + std::to_string(model.vocab_size) + "\n";
    s += "    --hidden_size " + std::to_string(model.hidden_size) + "\n";
    s += "    --seq_length " + std::to_string(model.seq_length) + "\n";
    s += "    --num_attention_heads " + std::to_string(model.num_heads) + "\n";
    s += "    --num_key_value_heads " + std::to_string(model.num_kv_heads) + "\n";
    s += ")\n\n";
    s += "TRAIN_ARGS=(\n";
    s += "    --do_train true\n";
    s += "    --max_steps \"${MAX_STEPS:-10000}\"\n";
    s += "    --enable_auto_parallel 1\n";
    s += "    --to_static 1\n";
    s += ")\n\n";
    s += "CONFIG_ARGS=(\n";
    s += "    --per_device_train_batch_size " + std::to_string(args.per_device_train_batch_size) + "\n";
    s += "    --gradient_accumulation_steps " + std::to_string(args.gradient_accumulation_steps) + "\n";
    s += "    --recompute " + boolText(args.recompute) + "\n";
    s += "    --recompute_granularity full\n";
    s += "    --use_flash_attention true\n";
    s += "    --bf16 " + boolText(bf16) + "\n";
    s += "    --fp16 " + boolText(fp16) + "\n";
    if (bf16 || fp16)
        s += "    --fp16_opt_level O2\n    --amp_master_grad true\n";
    s += ")\n\n";
    s += "PARALLEL_ARGS=(\n";
    s += "    --sharding_parallel_degree " + std::to_string(args.sharding_parallel_degree) + "\n";
    s += "    --sharding " + shellQuote(paddleShardingOption(args)) + "\n";
    s += "    --tensor_parallel_degree " + std::to_string(args.tensor_parallel_degree) + "\n";
    s += "    --sequence_parallel " + boolText(settings.sequence_parallel && args.tensor_parallel_degree > 1) + "\n";
    s += "    --pipeline_parallel_degree " + std::to_string(args.pipeline_parallel_degree) + "\n";
    s += "    --pipeline_schedule_mode "
        + shellQuote(plan.pipeline_type == galvatron::PipelineType::GPipe ? "FThenB" : "1F1B") + "\n";
    s += "    --virtual_pp_degree 1\n";
    s += ")\n\n";
    s += "DATA_ARGS=(\n";
    s += "    --input_dir \"$input_dir\"\n";
    s += "    --split \"${SPLIT:-949,50,1}\"\n";
    s += "    --max_seq_length " + std::to_string(model.seq_length) + "\n";
    s += ")\n\n";
    s += "GRANULARITY_RUNTIME_ARGS=(\n";
    s += "    --granularity_type fine_grained\n";
    s += "    --usp_flag " + std::string(args.ulysses ? "1" : "0") + "\n";
    s += "    --sharding_stage_level " + std::to_string(args.sharding_stage) + "\n";
    s += "    --fine_grained_config_path " + shellQuote(options.configPath) + "\n";
    s += ")\n\n";
    s += "\"$interpreter\" -u -m paddle.distributed.launch "
        + std::string(multiNode ? "--master \"$master:$port\" " : "") + "--nnodes \"$nnodes\" --rank \"$rank\" \\\n";
    s += "    --gpus " + gpus + " --log_dir \"output/${task_name}_log\" \\\n";
    s += "    " + shellQuote(options.trainer) + " --output_dir \"output/${task_name}\" \\\n";
    s += "    \"${MODEL_ARGS[@]}\" \"${TRAIN_ARGS[@]}\" \"${CONFIG_ARGS[@]}\" \"${PARALLEL_ARGS[@]}\" "
         "\"${DATA_ARGS[@]}\" "
         "\"${GRANULARITY_RUNTIME_ARGS[@]}\"\n";
    script.text = s;
    return script;
}

std::string paddleLaunchScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const PaddleScriptOptions& options)
{
    return paddleScript(plan, settings, model, options).text;
}

} // namespace stratex::exporting
