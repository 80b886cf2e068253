// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/megatron_args.h"

#include <algorithm>
#include <cstdio>

#include "core/common/error.h"
#include "core/export/shell_quote.h"
#include "core/export/uniform_plan.h"

namespace stratex::exporting {

namespace {

std::string joined(const std::vector<int>& values, const char* separator = ", ")
{
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? separator : "") + std::to_string(values[i]);
    return text;
}

std::string fixed(double value, int decimals)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string layerRange(int first, int last)
{
    return first == last ? "layer " + std::to_string(first)
                         : "layers " + std::to_string(first) + "-" + std::to_string(last);
}

bool allEqual(std::vector<int>::const_iterator begin, std::vector<int>::const_iterator end)
{
    return begin == end || std::all_of(begin, end, [&](int n) { return n == *begin; });
}

// One stage of a --pipeline-model-parallel-layout string: E (embedding), t (a decoder layer), L (loss),
// "t*n" for n layers (pipeline_parallel_layer_layout.py, parse_str_to_list).
std::string layoutStage(int layers, bool first, bool last)
{
    std::string stage = first ? "E" : "";
    stage += layers == 1 ? "t" : "t*" + std::to_string(layers);
    return stage + (last ? "L" : "");
}

// The plan's division in Megatron's terms: nothing for an even split; the first and/or last stage's
// count when the other stages are even (validate_args / TransformerConfig's uneven-PP rule: the
// middle layers divide evenly over the middle stages); else a layout naming every stage.
void divide(MegatronArgs& m, const std::vector<int>& division)
{
    const std::size_t pp = division.size();
    if (pp <= 1 || allEqual(division.begin(), division.end()))
        return;
    if (allEqual(division.begin(), division.end() - 1)) {
        m.decoder_last_pipeline_layers = division.back();
    } else if (allEqual(division.begin() + 1, division.end())) {
        m.decoder_first_pipeline_layers = division.front();
    } else if (pp >= 3 && allEqual(division.begin() + 1, division.end() - 1)) {
        m.decoder_first_pipeline_layers = division.front();
        m.decoder_last_pipeline_layers = division.back();
    } else {
        for (std::size_t s = 0; s < pp; ++s)
            m.layout += (s ? "|" : "") + layoutStage(division[s], s == 0, s + 1 == pp);
    }
}

// Runs of consecutive layers with the same remark: "layers 0-7: tp 1 (...)".
void addLayerComments(MegatronArgs& m, const std::vector<std::string>& remarks)
{
    std::size_t i = 0;
    while (i < remarks.size()) {
        std::size_t j = i;
        while (j + 1 < remarks.size() && remarks[j + 1] == remarks[i])
            ++j;
        if (!remarks[i].empty())
            m.comments.push_back(layerRange(int(i), int(j)) + ": " + remarks[i]);
        i = j + 1;
    }
}

std::string memoryText(const search::Evaluation& ev)
{
    std::vector<int> perStage;
    for (const search::StageBreakdown& stage : ev.stages)
        perStage.push_back(stage.memory_cost_mb);
    return fixed(ev.plan.time_cost_s, 3) + " s/iteration, memory per stage [" + joined(perStage) + "] MB of "
        + std::to_string(ev.budget.total_mb) + " MB";
}

// "stage 0 needs 48300 MB" for every stage over the budget.
std::string overBudget(const search::Evaluation& ev)
{
    std::string text;
    for (const search::StageBreakdown& stage : ev.stages) {
        if (stage.memory_remaining_mb < 0)
            text += (text.empty() ? "" : ", ") + std::string("stage ") + std::to_string(stage.stage) + " needs "
                + std::to_string(stage.memory_cost_mb) + " MB";
    }
    return text;
}

bool plainValue(const std::string& value)
{
    return std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
            || c == '.';
    });
}

} // namespace

std::vector<std::string> MegatronArgs::argumentLines() const
{
    std::vector<std::string> lines;
    for (const auto& [flag, value] : arguments)
        lines.push_back(value.empty() ? flag : flag + " " + (plainValue(value) ? value : shellQuote(value)));
    return lines;
}

MegatronArgs megatronArgs(const search::Plan& plan, const search::SearchSettings& settings,
    const model::ModelDescription& model, const cost::CostModel* costModel)
{
    MegatronArgs m;
    m.model_summary = "model " + model.name + ": " + std::to_string(model.num_layers) + " layers, hidden "
        + std::to_string(model.hidden_size) + ", " + std::to_string(model.num_heads) + " heads ("
        + std::to_string(model.num_kv_heads) + " KV), MLP " + std::to_string(model.ffn_hidden_size) + ", seq "
        + std::to_string(model.seq_length) + ", vocabulary " + std::to_string(model.vocab_size)
        + " (the tokenizer's arguments set it)";
    const int world = plan.world > 0 ? plan.world : settings.world();
    const int layers = int(plan.layers.size());
    m.pipeline_parallel = plan.pp;
    m.tensor_parallel = mostCommonTp(plan);
    m.context_parallel = mostCommonUlysses(plan);
    const int modelParallel = m.pipeline_parallel * m.tensor_parallel * m.context_parallel;
    m.data_parallel = std::max(1, world / modelParallel);
    m.sequence_parallel = settings.sequence_parallel && m.tensor_parallel > 1;
    m.global_batch_size = plan.gbsz;
    const long long perStep = static_cast<long long>(plan.chunks) * m.data_parallel;
    m.micro_batch_size = int(std::max(1LL, (plan.gbsz + perStep - 1) / perStep));
    const auto reject = [&](const std::string& what) {
        m.comments.push_back("Megatron-LM will reject this: " + what);
        m.warnings.push_back("Megatron-LM will reject the exported arguments: " + what);
    };
    if (plan.gbsz % perStep != 0)
        reject("global batch " + std::to_string(plan.gbsz)
            + " is not a multiple of micro-batches x dp = " + std::to_string(perStep)
            + " (the micro-batch size is rounded up to " + std::to_string(m.micro_batch_size) + ")");

    // Stages: exact, by the first/last stage's count or a layout.
    divide(m, plan.pp_division);

    // Recomputation: Megatron's full granularity, every layer (uniform) or the first N of every stage
    // (block).
    std::vector<int> stageOf;
    std::vector<int> positionInStage;
    std::vector<int> perStage;
    bool everyLayer = layers > 0;
    {
        int first = 0;
        for (int stage = 0; stage < plan.pp; ++stage) {
            const int n = plan.pp_division[std::size_t(stage)];
            int total = 0;
            for (int j = 0; j < n; ++j) {
                stageOf.push_back(stage);
                positionInStage.push_back(j);
                const bool ckpt = plan.layers[std::size_t(first + j)].checkpoint;
                total += ckpt ? 1 : 0;
                everyLayer = everyLayer && ckpt;
            }
            perStage.push_back(total);
            first += n;
        }
    }
    const int mostPerStage = perStage.empty() ? 0 : *std::max_element(perStage.begin(), perStage.end());
    if (everyLayer) {
        m.recompute_granularity = "full";
        m.recompute_method = "uniform";
        m.recompute_layers = 1;
    } else if (mostPerStage > 0) {
        m.recompute_granularity = "full";
        m.recompute_method = "block";
        m.recompute_layers = mostPerStage;
        bool exact = true;
        bool leading = true; // every stage recomputes its first layers
        for (int i = 0; i < layers; ++i) {
            const int position = positionInStage[std::size_t(i)];
            const bool ckpt = plan.layers[std::size_t(i)].checkpoint;
            exact = exact && ckpt == (position < mostPerStage);
            leading = leading && ckpt == (position < perStage[std::size_t(stageOf[std::size_t(i)])]);
        }
        if (!exact)
            m.comments.push_back("the plan recomputes (per stage) " + joined(perStage) + " layers"
                + (leading ? "" : ", not always the first ones") + "; Megatron's block method recomputes the first "
                + std::to_string(mostPerStage) + " of every stage (at least as much memory saved, more time)");
    }

    // Data parallelism: one flavour for the whole model.
    const DpTypeMix mix = dpTypeMix(plan);
    cost::DpType exportedDpType = cost::DpType::Ddp;
    if (m.data_parallel > 1 && mix.any_zero3) {
        // Megatron-FSDP, not --use-torch-fsdp2: validate_args refuses torch FSDP2 with pipeline
        // parallelism, tied embeddings and fp16; Megatron-FSDP's optim_grads_params is ZeRO-3.
        m.data_parallel_kind = MegatronDataParallel::MegatronFsdp;
        m.distributed_optimizer = true; // Megatron-FSDP v1 (the default) runs on the distributed optimizer
        exportedDpType = cost::DpType::Zero3;
        if (!mix.every_zero3) {
            int zero3 = 0;
            for (const cost::LayerStrategy& s : plan.layers)
                zero3 += s.dp > 1 && s.dp_type == cost::DpType::Zero3 ? 1 : 0;
            m.comments.push_back("per-layer ZeRO is not expressible (ZeRO-3 on " + std::to_string(zero3) + " of "
                + std::to_string(layers)
                + " layers): every layer runs Megatron-FSDP's ZeRO-3, with less memory and more communication "
                  "than planned");
        }
    } else if (m.data_parallel > 1 && mix.any_zero2) {
        m.data_parallel_kind = MegatronDataParallel::DistributedOptimizer;
        m.distributed_optimizer = true;
        exportedDpType = cost::DpType::Zero2;
        m.comments.push_back("ZeRO-2 runs as Megatron's distributed optimizer: optimizer states sharded, gradient "
                             "buffers whole (re-costed as ZeRO-2, which does not count that difference)");
    }
    if (plan.embedSdp() == 1 && m.data_parallel_kind == MegatronDataParallel::MegatronFsdp)
        m.comments.push_back("embedding / LM head: ZeRO-3 planned; Megatron-FSDP shards transformer layers only");
    else if (plan.embedSdp() == 1)
        m.comments.push_back("embedding / LM head: ZeRO-3 planned; Megatron shards its optimizer states at most");
    if (plan.vtp() != m.tensor_parallel * m.context_parallel || plan.vsp() != (m.context_parallel > 1 ? 1 : 0))
        m.comments.push_back("embedding / LM head: vtp " + std::to_string(plan.vtp())
            + (plan.vsp() ? " as Ulysses SP" : "") + "; Megatron splits the vocabulary over the model's TP group");

    // Layers Megatron cannot give their own degrees or DP flavour.
    std::vector<std::string> remarks;
    for (const cost::LayerStrategy& s : plan.layers) {
        std::vector<std::string> issues;
        if (s.tp != m.tensor_parallel)
            issues.push_back(
                "tp " + std::to_string(s.tp) + " (Megatron: one TP degree, " + std::to_string(m.tensor_parallel) + ")");
        if (s.sp != m.context_parallel)
            issues.push_back("Ulysses SP " + std::to_string(s.sp) + " (Megatron: one context-parallel degree, "
                + std::to_string(m.context_parallel) + ")");
        std::string text;
        for (std::size_t k = 0; k < issues.size(); ++k)
            text += (k ? "; " : "") + issues[k];
        remarks.push_back(text);
    }
    addLayerComments(m, remarks);
    if (plan.pipeline_type == cost::PipelineType::GPipe)
        m.comments.push_back("GPipe schedule: Megatron runs 1F1B (less activation memory than costed for the plan)");

    // What Megatron would refuse (validate_args, TransformerConfig.__post_init__).
    const int tp = m.tensor_parallel;
    if (world % modelParallel != 0)
        reject("world size " + std::to_string(world)
            + " is not divisible by tp x pp x cp = " + std::to_string(modelParallel));
    if (model.num_heads % tp != 0)
        reject("num_attention_heads " + std::to_string(model.num_heads) + " is not a multiple of tp "
            + std::to_string(tp));
    if (model.num_kv_heads % tp != 0 && tp % model.num_kv_heads != 0)
        reject("num_query_groups " + std::to_string(model.num_kv_heads) + " is neither a multiple nor a divisor of tp "
            + std::to_string(tp));
    if (model.ffn_hidden_size % tp != 0)
        reject("ffn_hidden_size " + std::to_string(model.ffn_hidden_size) + " does not split over tp "
            + std::to_string(tp));
    if (m.context_parallel > 1 && model.seq_length % (2 * m.context_parallel) != 0)
        reject("seq_length " + std::to_string(model.seq_length) + " is not a multiple of 2 x context-parallel size "
            + std::to_string(2 * m.context_parallel));
    if (model.num_layers != layers)
        reject("the model has " + std::to_string(model.num_layers) + " layers, the plan " + std::to_string(layers));

    // The arguments.
    auto& a = m.arguments;
    const auto add
        = [&a](std::string flag, std::string value = {}) { a.emplace_back(std::move(flag), std::move(value)); };
    const auto number = [](long long n) { return std::to_string(n); };
    add("--num-layers", number(model.num_layers));
    add("--hidden-size", number(model.hidden_size));
    add("--ffn-hidden-size", number(model.ffn_hidden_size));
    add("--num-attention-heads", number(model.num_heads));
    if (model.num_kv_heads < model.num_heads) {
        add("--group-query-attention");
        add("--num-query-groups", number(model.num_kv_heads));
    }
    add("--seq-length", number(model.seq_length));
    add("--max-position-embeddings", number(model.seq_length));
    if (model.mlp == model::MlpKind::Gated)
        add("--swiglu");
    add("--normalization", model.norm == model::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm");
    add("--position-embedding-type", model.position == model::PositionEmbedding::Rope ? "rope" : "learned_absolute");
    if (!model.tied_embeddings)
        add("--untie-embeddings-and-output-weights");
    if (model.mlp == model::MlpKind::Gated) {
        // Llama-style models have no linear biases; Qwen keeps one on Q, K and V.
        add("--disable-bias-linear");
        if (model.name.rfind("qwen", 0) == 0) {
            add("--add-qkv-bias");
            m.comments.push_back("--add-qkv-bias: Qwen's Q/K/V bias (from the model's name; the description does "
                                 "not record biases)");
        }
    }
    if (model.moe) {
        const model::MoeDescription& moe = *model.moe;
        add("--num-experts", number(moe.num_experts));
        add("--moe-router-topk", number(moe.top_k));
        add("--moe-ffn-hidden-size", number(moe.expert_ffn_hidden_size));
        if (moe.shared_experts > 0)
            add("--moe-shared-expert-intermediate-size",
                number(static_cast<long long>(moe.shared_experts) * moe.shared_expert_ffn_hidden_size));
        if (moe.first_dense_layers > 0)
            add("--moe-layer-freq",
                "([0]*" + number(moe.first_dense_layers) + "+[1]*" + number(model.num_layers - moe.first_dense_layers)
                    + ")");
        m.comments.push_back("expert parallelism: none (the plan has no EP degree; --expert-model-parallel-size 1)");
    }
    add("--tensor-model-parallel-size", number(m.tensor_parallel));
    add("--pipeline-model-parallel-size", number(m.pipeline_parallel));
    if (!m.layout.empty())
        add("--pipeline-model-parallel-layout", m.layout);
    if (m.decoder_first_pipeline_layers > 0)
        add("--decoder-first-pipeline-num-layers", number(m.decoder_first_pipeline_layers));
    if (m.decoder_last_pipeline_layers > 0)
        add("--decoder-last-pipeline-num-layers", number(m.decoder_last_pipeline_layers));
    if (m.context_parallel > 1) {
        add("--context-parallel-size", number(m.context_parallel));
        add("--cp-comm-type", "a2a");
    }
    if (m.sequence_parallel)
        add("--sequence-parallel");
    if (!m.recompute_granularity.empty()) {
        add("--recompute-granularity", m.recompute_granularity);
        add("--recompute-method", m.recompute_method);
        add("--recompute-num-layers", number(m.recompute_layers));
    }
    add("--micro-batch-size", number(m.micro_batch_size));
    add("--global-batch-size", number(m.global_batch_size));
    if (m.data_parallel_kind == MegatronDataParallel::MegatronFsdp) {
        add("--use-megatron-fsdp");
        add("--data-parallel-sharding-strategy", "optim_grads_params");
        add("--use-distributed-optimizer");
        add("--ckpt-format", "fsdp_dtensor");
    } else if (m.distributed_optimizer) {
        add("--use-distributed-optimizer");
    }
    if (settings.mixed_precision == cost::MixedPrecision::Bf16)
        add("--bf16");
    else if (settings.mixed_precision == cost::MixedPrecision::Fp16)
        add("--fp16");

    // The environment: Megatron asserts CUDA_DEVICE_MAX_CONNECTIONS == 1 with TP or CP > 1 (before
    // Blackwell), and Megatron-FSDP asserts it is not 1.
    if (m.data_parallel_kind == MegatronDataParallel::MegatronFsdp)
        m.unset_environment.push_back("CUDA_DEVICE_MAX_CONNECTIONS");
    else if (m.tensor_parallel > 1 || m.context_parallel > 1)
        m.environment.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", "1");

    // What Megatron runs, as a plan Stratex can cost.
    search::Plan& e = m.exported;
    e.gbsz = plan.gbsz;
    e.chunks = plan.chunks;
    e.pp = plan.pp;
    e.world = world;
    e.pp_division = plan.pp_division;
    e.pipeline_type = cost::PipelineType::PipeDreamFlush;
    e.default_dp_type = m.data_parallel_kind == MegatronDataParallel::Ddp ? cost::DpType::Ddp : cost::DpType::Zero2;
    for (int i = 0; i < layers; ++i) {
        cost::LayerStrategy s;
        s.pp = plan.pp;
        s.tp = m.tensor_parallel;
        s.sp = m.context_parallel;
        s.dp = m.data_parallel;
        s.dp_type = s.dp > 1 ? exportedDpType : cost::DpType::Ddp;
        s.checkpoint = m.recompute_method == "uniform"
            || (m.recompute_method == "block" && positionInStage[std::size_t(i)] < m.recompute_layers);
        e.layers.push_back(s);
    }
    e.embedding.pp = plan.pp;
    e.embedding.tp = m.tensor_parallel;
    e.embedding.sp = m.context_parallel;
    e.embedding.dp = m.data_parallel;
    e.embedding.dp_type = m.data_parallel > 1 && m.data_parallel_kind != MegatronDataParallel::Ddp ? cost::DpType::Zero2
                                                                                                   : cost::DpType::Ddp;

    if (!costModel) {
        m.not_costed = "no cost model (give the search's profiles, or a strategy file with its model and cluster)";
        return m;
    }
    try {
        m.planned = search::evaluate(*costModel, settings, plan);
    } catch (const Error& error) {
        m.not_costed = std::string("the plan: ") + error.what();
    }
    try {
        search::SearchSettings megatron = settings;
        megatron.pipeline_type = cost::PipelineType::PipeDreamFlush;
        m.recosted = search::evaluate(*costModel, megatron, e);
    } catch (const Error& error) {
        m.not_costed = std::string("the Megatron-LM version: ") + error.what();
    }
    if (m.recosted && !m.recosted->fits)
        m.warnings.push_back("the Megatron-LM version does not fit the memory budget of "
            + std::to_string(m.recosted->budget.total_mb) + " MB per GPU: " + overBudget(*m.recosted));
    return m;
}

std::string megatronArgsScript(const search::Plan& plan, const search::SearchSettings& settings,
    const model::ModelDescription& model, const cost::CostModel* costModel)
{
    return megatronArgsScript(plan, settings, megatronArgs(plan, settings, model, costModel));
}

std::string megatronArgsScript(const search::Plan& plan, const search::SearchSettings& settings, const MegatronArgs& m)
{
    std::string s;
    s += "#!/usr/bin/env bash\n";
    s += "# Megatron-LM pretrain_gpt.py arguments for a Galvatron strategy, written by Stratex.\n";
    s += "# " + commentLine(m.model_summary) + "\n";
    s += "# "
        + commentLine("plan: pp " + std::to_string(plan.pp) + ", chunks " + std::to_string(plan.chunks)
            + ", global batch " + std::to_string(plan.gbsz) + "; layers " + plan.layerSummary())
        + "\n";
    const char* dpKind = m.data_parallel_kind == MegatronDataParallel::MegatronFsdp ? " (Megatron-FSDP, ZeRO-3)"
        : m.data_parallel_kind == MegatronDataParallel::DistributedOptimizer        ? " (distributed optimizer)"
                                                                                    : "";
    s += "# Megatron: tp " + std::to_string(m.tensor_parallel) + ", pp " + std::to_string(m.pipeline_parallel) + ", cp "
        + std::to_string(m.context_parallel) + ", dp " + std::to_string(m.data_parallel) + dpKind + "\n";
    s += "# Predicted by Stratex (Galvatron's cost model):\n";
    if (m.planned)
        s += "#   the plan:            " + memoryText(*m.planned) + (m.planned->fits ? " (fits)" : " (DOES NOT FIT)")
            + "\n";
    if (m.recosted) {
        s += "#   as Megatron runs it: " + memoryText(*m.recosted)
            + (m.recosted->fits ? " (fits)" : " (DOES NOT FIT: " + overBudget(*m.recosted) + ")") + "\n";
    }
    if (!m.not_costed.empty())
        s += "#   not costed: " + commentLine(m.not_costed) + "\n";
    if (!m.comments.empty())
        s += "# Not expressible in Megatron-LM, exported as the nearest it accepts:\n";
    for (const std::string& comment : m.comments)
        s += "#   " + commentLine(comment) + "\n";
    s += "# Source it for MEGATRON_ARGS, or run it with the data, tokenizer and optimizer arguments appended:\n";
    s += "#   " + std::string(settings.num_nodes > 1 ? "MASTER_ADDR=host0 NODE_RANK=0 " : "")
        + "./megatron_args.sh --data-path ... --tokenizer-type ... --lr ... --train-iters ...\n";
    s += "MEGATRON_ARGS=(\n";
    for (const std::string& argument : m.argumentLines())
        s += "    " + argument + "\n";
    s += ")\n";
    s += "if [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then\n";
    std::string env;
    for (const std::string& name : m.unset_environment)
        env += " -u " + name;
    for (const auto& [name, value] : m.environment)
        env += " " + name + "=" + value;
    s += "    exec " + (env.empty() ? std::string() : "env" + env + " ") + "torchrun";
    if (settings.num_nodes > 1) {
        s += " --nnodes " + std::to_string(settings.num_nodes) + " --nproc-per-node "
            + std::to_string(settings.num_gpus_per_node) + " \\\n";
        s += "        --node-rank \"${NODE_RANK:?set NODE_RANK (0 to " + std::to_string(settings.num_nodes - 1)
            + ")}\" --master-addr \"${MASTER_ADDR:?set MASTER_ADDR}\" --master-port \"${MASTER_PORT:-6000}\" \\\n";
    } else {
        s += " --standalone --nproc-per-node " + std::to_string(settings.num_gpus_per_node) + " \\\n";
    }
    s += "        \"${PRETRAIN_GPT:-pretrain_gpt.py}\" \"${MEGATRON_ARGS[@]}\" \"$@\"\n";
    s += "fi\n";
    return s;
}

} // namespace stratex::exporting
