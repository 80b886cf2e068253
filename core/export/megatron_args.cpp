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

// A comment of the script that is also a note of the export (export_note.h).
void approximate(MegatronArgs& m, std::string field, const std::string& text)
{
    m.comments.push_back(text);
    addExportNote(m.notes, ExportNoteKind::Approximation, std::move(field), "Megatron-LM: " + text);
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
            approximate(m, "tp_sizes_enc", layerRange(int(i), int(j)) + ": " + remarks[i]);
        i = j + 1;
    }
}

std::string memoryText(const galvatron::Evaluation& ev)
{
    std::vector<int> perStage;
    for (const galvatron::StageBreakdown& stage : ev.stages)
        perStage.push_back(stage.memory_cost_mb);
    return fixed(ev.plan.time_cost_s, 3) + " s/iteration, memory per stage [" + joined(perStage) + "] MB of "
        + std::to_string(ev.budget.total_mb) + " MB";
}

// "stage 0 needs 48300 MB" for every stage over the budget.
std::string overBudget(const galvatron::Evaluation& ev)
{
    std::string text;
    for (const galvatron::StageBreakdown& stage : ev.stages) {
        if (stage.memory_remaining_mb < 0)
            text += (text.empty() ? "" : ", ") + std::string("stage ") + std::to_string(stage.stage) + " needs "
                + std::to_string(stage.memory_cost_mb) + " MB";
    }
    return text;
}

} // namespace

MegatronArgs megatronArgs(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const galvatron::CostModel* costModel)
{
    MegatronArgs m;
    m.model_summary = megatronModelSummary(model);
    const int world = plan.world > 0 ? plan.world : settings.world();
    const int layers = int(plan.layers.size());
    m.run.pipeline_parallel = plan.pp;
    m.run.tensor_parallel = mostCommonTp(plan);
    m.run.context_parallel = mostCommonUlysses(plan);
    const int modelParallel = m.run.pipeline_parallel * m.run.tensor_parallel * m.run.context_parallel;
    m.run.data_parallel = std::max(1, world / modelParallel);
    m.run.sequence_parallel = settings.sequence_parallel && m.run.tensor_parallel > 1;
    m.run.global_batch_size = plan.gbsz;
    const long long perStep = static_cast<long long>(plan.chunks) * m.run.data_parallel;
    m.run.micro_batch_size = int(std::max(1LL, (plan.gbsz + perStep - 1) / perStep));
    const auto reject = [&](const std::string& what) {
        m.comments.push_back("Megatron-LM will reject this: " + what);
        addExportNote(m.notes, ExportNoteKind::Refusal, "arguments",
            "Megatron-LM will reject the exported arguments: " + what);
    };
    if (plan.gbsz % perStep != 0)
        reject("global batch " + std::to_string(plan.gbsz)
            + " is not a multiple of micro-batches x dp = " + std::to_string(perStep)
            + " (the micro-batch size is rounded up to " + std::to_string(m.run.micro_batch_size) + ")");

    // Stages: exact, by the first/last stage's count or a layout.
    m.run.division = megatronPipelineLayout(plan.pp_division, plan.pp);

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
        m.run.recompute_granularity = "full";
        m.run.recompute_method = "uniform";
        m.run.recompute_layers = 1;
    } else if (mostPerStage > 0) {
        m.run.recompute_granularity = "full";
        m.run.recompute_method = "block";
        m.run.recompute_layers = mostPerStage;
        bool exact = true;
        bool leading = true; // every stage recomputes its first layers
        for (int i = 0; i < layers; ++i) {
            const int position = positionInStage[std::size_t(i)];
            const bool ckpt = plan.layers[std::size_t(i)].checkpoint;
            exact = exact && ckpt == (position < mostPerStage);
            leading = leading && ckpt == (position < perStage[std::size_t(stageOf[std::size_t(i)])]);
        }
        if (!exact)
            approximate(m, "checkpoint", "the plan recomputes (per stage) " + joined(perStage) + " layers"
                + (leading ? "" : ", not always the first ones") + "; Megatron's block method recomputes the first "
                + std::to_string(mostPerStage) + " of every stage (at least as much memory saved, more time)");
    }

    // Data parallelism: one flavour for the whole model.
    const DpTypeMix mix = dpTypeMix(plan);
    galvatron::DpType exportedDpType = galvatron::DpType::Ddp;
    if (m.run.data_parallel > 1 && mix.any_zero3) {
        // Megatron-FSDP, not --use-torch-fsdp2: validate_args refuses torch FSDP2 with pipeline
        // parallelism, tied embeddings and fp16; Megatron-FSDP's optim_grads_params is ZeRO-3.
        m.run.data_parallel_kind = MegatronDataParallel::MegatronFsdp;
        exportedDpType = galvatron::DpType::Zero3;
        if (!mix.every_zero3) {
            int zero3 = 0;
            for (const galvatron::LayerStrategy& s : plan.layers)
                zero3 += s.dp > 1 && s.dp_type == galvatron::DpType::Zero3 ? 1 : 0;
            approximate(m, "dp_types_enc", "per-layer ZeRO is not expressible (ZeRO-3 on " + std::to_string(zero3) + " of "
                + std::to_string(layers)
                + " layers): every layer runs Megatron-FSDP's ZeRO-3, with less memory and more communication "
                  "than planned");
        }
    } else if (m.run.data_parallel > 1 && mix.any_zero2) {
        m.run.data_parallel_kind = MegatronDataParallel::DistributedOptimizer;
        exportedDpType = galvatron::DpType::Zero2;
        approximate(m, "default_dp_type", "ZeRO-2 runs as Megatron's distributed optimizer: optimizer states sharded, gradient "
                             "buffers whole (re-costed as ZeRO-2, which does not count that difference)");
    }
    if (plan.embedSdp() == 1 && m.run.data_parallel_kind == MegatronDataParallel::MegatronFsdp)
        approximate(m, "embed_sdp", "embedding / LM head: ZeRO-3 planned; Megatron-FSDP shards transformer layers only");
    else if (plan.embedSdp() == 1)
        approximate(m, "embed_sdp", "embedding / LM head: ZeRO-3 planned; Megatron shards its optimizer states at most");
    if (plan.vtp() != m.run.tensor_parallel * m.run.context_parallel
        || plan.vsp() != (m.run.context_parallel > 1 ? 1 : 0))
        approximate(m, "vtp", "embedding / LM head: vtp " + std::to_string(plan.vtp())
            + (plan.vsp() ? " as Ulysses SP" : "") + "; Megatron splits the vocabulary over the model's TP group");

    // Layers Megatron cannot give their own degrees or DP flavour.
    std::vector<std::string> remarks;
    for (const galvatron::LayerStrategy& s : plan.layers) {
        std::vector<std::string> issues;
        if (s.tp != m.run.tensor_parallel)
            issues.push_back("tp " + std::to_string(s.tp) + " (Megatron: one TP degree, "
                + std::to_string(m.run.tensor_parallel) + ")");
        if (s.sp != m.run.context_parallel)
            issues.push_back("Ulysses SP " + std::to_string(s.sp) + " (Megatron: one context-parallel degree, "
                + std::to_string(m.run.context_parallel) + ")");
        std::string text;
        for (std::size_t k = 0; k < issues.size(); ++k)
            text += (k ? "; " : "") + issues[k];
        remarks.push_back(text);
    }
    addLayerComments(m, remarks);
    if (plan.pipeline_type == galvatron::PipelineType::GPipe)
        approximate(m, "pipeline_type", "GPipe schedule: Megatron runs 1F1B (less activation memory than costed for the plan)");

    // What Megatron would refuse (validate_args, TransformerConfig.__post_init__).
    const int tp = m.run.tensor_parallel;
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
    if (m.run.context_parallel > 1 && model.seq_length % (2 * m.run.context_parallel) != 0)
        reject("seq_length " + std::to_string(model.seq_length) + " is not a multiple of 2 x context-parallel size "
            + std::to_string(2 * m.run.context_parallel));
    if (model.num_layers != layers)
        reject("the model has " + std::to_string(model.num_layers) + " layers, the plan " + std::to_string(layers));

    // The arguments.
    m.run.cp_comm_type = "a2a"; // Ulysses: heads scattered over the CP group
    m.run.precision = settings.mixed_precision == galvatron::MixedPrecision::Bf16 ? MegatronPrecision::Bf16
        : settings.mixed_precision == galvatron::MixedPrecision::Fp16             ? MegatronPrecision::Fp16
                                                                             : MegatronPrecision::Fp32;
    for (const std::string& difference : addMegatronModelArguments(m.arguments, model))
        approximate(m, "model", difference);
    if (model.moe)
        approximate(m, "model.moe", "expert parallelism: none (the plan has no EP degree; --expert-model-parallel-size 1)");
    addMegatronRunArguments(m.arguments, m.run, model.moe.has_value());

    const MegatronEnvironment environment
        = megatronEnvironment(m.run.tensor_parallel, m.run.context_parallel, m.run.data_parallel_kind);
    m.environment = environment.set;
    m.unset_environment = environment.unset;

    // What Megatron runs, as a plan Stratex can cost.
    galvatron::Plan& e = m.exported;
    e.gbsz = plan.gbsz;
    e.chunks = plan.chunks;
    e.pp = plan.pp;
    e.world = world;
    e.pp_division = plan.pp_division;
    e.pipeline_type = galvatron::PipelineType::PipeDreamFlush;
    e.default_dp_type = m.run.data_parallel_kind == MegatronDataParallel::Ddp ? galvatron::DpType::Ddp : galvatron::DpType::Zero2;
    for (int i = 0; i < layers; ++i) {
        galvatron::LayerStrategy s;
        s.pp = plan.pp;
        s.tp = m.run.tensor_parallel;
        s.sp = m.run.context_parallel;
        s.dp = m.run.data_parallel;
        s.dp_type = s.dp > 1 ? exportedDpType : galvatron::DpType::Ddp;
        s.checkpoint = m.run.recompute_method == "uniform"
            || (m.run.recompute_method == "block" && positionInStage[std::size_t(i)] < m.run.recompute_layers);
        e.layers.push_back(s);
    }
    e.embedding.pp = plan.pp;
    e.embedding.tp = m.run.tensor_parallel;
    e.embedding.sp = m.run.context_parallel;
    e.embedding.dp = m.run.data_parallel;
    e.embedding.dp_type = m.run.data_parallel > 1 && m.run.data_parallel_kind != MegatronDataParallel::Ddp
        ? galvatron::DpType::Zero2
        : galvatron::DpType::Ddp;

    if (!costModel) {
        m.not_costed = "no cost model (give the search's profiles, or a strategy file with its model and cluster)";
        return m;
    }
    try {
        m.planned = galvatron::evaluate(*costModel, settings, plan);
    } catch (const Error& error) {
        m.not_costed = std::string("the plan: ") + error.what();
    }
    try {
        galvatron::SearchSettings megatron = settings;
        megatron.pipeline_type = galvatron::PipelineType::PipeDreamFlush;
        m.recosted = galvatron::evaluate(*costModel, megatron, e);
    } catch (const Error& error) {
        m.not_costed = std::string("the Megatron-LM version: ") + error.what();
    }
    if (m.recosted && !m.recosted->fits)
        addExportNote(m.notes, ExportNoteKind::Approximation, "memory",
            "the Megatron-LM version does not fit the memory budget of "
            + std::to_string(m.recosted->budget.total_mb) + " MB per GPU: " + overBudget(*m.recosted));
    return m;
}

std::string megatronArgsScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const galvatron::CostModel* costModel)
{
    return megatronArgsScript(plan, settings, megatronArgs(plan, settings, model, costModel));
}

std::string megatronArgsScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const MegatronArgs& m)
{
    std::string s;
    s += "#!/usr/bin/env bash\n";
    s += "# Megatron-LM pretrain_gpt.py arguments for a Galvatron strategy, written by Stratex.\n";
    s += "# " + commentLine(m.model_summary) + "\n";
    s += "# "
        + commentLine("plan: pp " + std::to_string(plan.pp) + ", chunks " + std::to_string(plan.chunks)
            + ", global batch " + std::to_string(plan.gbsz) + "; layers " + plan.layerSummary())
        + "\n";
    s += "# Megatron: tp " + std::to_string(m.run.tensor_parallel) + ", pp " + std::to_string(m.run.pipeline_parallel)
        + ", cp " + std::to_string(m.run.context_parallel) + ", dp " + std::to_string(m.run.data_parallel)
        + megatronDataParallelText(m.run.data_parallel_kind) + "\n";
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
    s += megatronLaunchText(
        m.arguments, { m.environment, m.unset_environment }, settings.num_nodes, settings.num_gpus_per_node);
    return s;
}

} // namespace stratex::exporting
