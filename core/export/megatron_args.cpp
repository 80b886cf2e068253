// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/megatron_args.h"

#include <algorithm>
#include <map>

#include "core/export/shell_quote.h"

namespace stratex::exporting {

namespace {

// The value most layers use (the smaller one on ties).
template <typename Get> int mostCommon(const search::Plan& plan, Get get)
{
    std::map<int, int> counts;
    for (const cost::LayerStrategy& s : plan.layers)
        ++counts[get(s)];
    int best = 1;
    int bestCount = -1;
    for (const auto& [value, count] : counts) {
        if (count > bestCount) {
            best = value;
            bestCount = count;
        }
    }
    return best;
}

} // namespace

MegatronArgs megatronArgs(const search::Plan& plan, const search::SearchSettings& settings,
    const model::ModelDescription& model, const cost::CostModel*)
{
    MegatronArgs m;
    const int world = plan.world > 0 ? plan.world : settings.world();
    m.pipeline_parallel = plan.pp;
    m.tensor_parallel = mostCommon(plan, [](const cost::LayerStrategy& s) { return s.tp; });
    m.context_parallel = mostCommon(plan, [](const cost::LayerStrategy& s) { return s.sp; });
    m.data_parallel = std::max(1, world / (m.pipeline_parallel * m.tensor_parallel * m.context_parallel));
    m.sequence_parallel = settings.sequence_parallel && m.tensor_parallel > 1;
    m.global_batch_size = plan.gbsz;
    const long long perStep = static_cast<long long>(plan.chunks) * m.data_parallel;
    m.micro_batch_size = int(std::max(1LL, (plan.gbsz + perStep - 1) / perStep));
    if (plan.gbsz % perStep != 0)
        m.comments.push_back("global batch " + std::to_string(plan.gbsz) + " is not a multiple of chunks x dp = "
            + std::to_string(perStep) + "; micro-batch size rounded up, Megatron will reject the combination");

    // Recompute: Megatron's block method recomputes the first N layers of every stage.
    int first = 0;
    bool exactRecompute = true;
    std::vector<int> perStage;
    for (int stage = 0; stage < plan.pp; ++stage) {
        const int n = plan.pp_division[std::size_t(stage)];
        int leading = 0;
        while (leading < n && plan.layers[std::size_t(first + leading)].checkpoint)
            ++leading;
        int total = 0;
        for (int i = first; i < first + n; ++i)
            total += plan.layers[std::size_t(i)].checkpoint ? 1 : 0;
        exactRecompute = exactRecompute && leading == total;
        perStage.push_back(total);
        first += n;
    }
    m.recompute_layers = perStage.empty() ? 0 : *std::max_element(perStage.begin(), perStage.end());
    const bool sameCount
        = std::all_of(perStage.begin(), perStage.end(), [&](int n) { return n == m.recompute_layers; });
    if (m.recompute_layers > 0 && (!exactRecompute || !sameCount)) {
        std::string counts;
        for (std::size_t i = 0; i < perStage.size(); ++i)
            counts += (i ? ", " : "") + std::to_string(perStage[i]);
        m.comments.push_back("the plan recomputes (per stage) " + counts
            + " layers, not always the first ones; "
              "Megatron's block method recomputes the first "
            + std::to_string(m.recompute_layers)
            + " of every stage (at least as much memory saved, a little more time)");
    }

    // Layers Megatron cannot give their own strategy.
    bool anyZero = false;
    for (std::size_t i = 0; i < plan.layers.size(); ++i) {
        const cost::LayerStrategy& s = plan.layers[i];
        std::vector<std::string> issues;
        if (s.tp != m.tensor_parallel)
            issues.push_back(
                "tp " + std::to_string(s.tp) + " (Megatron: one TP degree, " + std::to_string(m.tensor_parallel) + ")");
        if (s.sp != m.context_parallel)
            issues.push_back("Ulysses SP " + std::to_string(s.sp) + " (Megatron: one context-parallel degree, "
                + std::to_string(m.context_parallel) + ")");
        if (s.dp_type == cost::DpType::Zero3)
            issues.push_back("ZeRO-3 (Megatron shards optimizer states only: --use-distributed-optimizer)");
        anyZero = anyZero || s.dp_type != cost::DpType::Ddp;
        if (!issues.empty()) {
            std::string text = "layer " + std::to_string(i) + ": ";
            for (std::size_t k = 0; k < issues.size(); ++k)
                text += (k ? "; " : "") + issues[k];
            m.comments.push_back(text);
        }
    }
    m.distributed_optimizer = anyZero;
    if (plan.vtp() != m.tensor_parallel * m.context_parallel || plan.vsp() != (m.context_parallel > 1 ? 1 : 0))
        m.comments.push_back("embedding / LM head: vtp " + std::to_string(plan.vtp())
            + (plan.vsp() ? " as Ulysses SP" : "") + "; Megatron splits the vocabulary over the model's TP group");
    if (plan.embedSdp() == 1)
        m.comments.push_back("embedding / LM head: ZeRO-3 (Megatron: distributed optimizer at most)");

    // Stages: Galvatron splits evenly with the remainder on the last stage.
    const std::vector<int> even = search::evenDivision(int(plan.layers.size()), plan.pp);
    if (plan.pp_division != even) {
        std::string division;
        for (std::size_t i = 0; i < plan.pp_division.size(); ++i)
            division += (i ? "," : "") + std::to_string(plan.pp_division[i]);
        m.comments.push_back("pipeline division " + division + " is not expressible; Megatron splits evenly");
    } else if (plan.pp > 1 && even.back() != even.front()) {
        m.decoder_last_pipeline_layers = even.back();
    }

    auto& a = m.arguments;
    a.push_back("--num-layers " + std::to_string(model.num_layers));
    a.push_back("--hidden-size " + std::to_string(model.hidden_size));
    a.push_back("--num-attention-heads " + std::to_string(model.num_heads));
    a.push_back("--seq-length " + std::to_string(model.seq_length));
    a.push_back("--max-position-embeddings " + std::to_string(model.seq_length));
    a.push_back("--tensor-model-parallel-size " + std::to_string(m.tensor_parallel));
    a.push_back("--pipeline-model-parallel-size " + std::to_string(m.pipeline_parallel));
    if (m.decoder_last_pipeline_layers > 0)
        a.push_back("--decoder-last-pipeline-num-layers " + std::to_string(m.decoder_last_pipeline_layers));
    if (m.context_parallel > 1) {
        a.push_back("--context-parallel-size " + std::to_string(m.context_parallel));
        a.push_back("--cp-comm-type a2a");
    }
    if (m.sequence_parallel)
        a.push_back("--sequence-parallel");
    if (m.recompute_layers > 0) {
        a.push_back("--recompute-granularity full");
        a.push_back("--recompute-method block");
        a.push_back("--recompute-num-layers " + std::to_string(m.recompute_layers));
    }
    a.push_back("--micro-batch-size " + std::to_string(m.micro_batch_size));
    a.push_back("--global-batch-size " + std::to_string(m.global_batch_size));
    if (m.distributed_optimizer)
        a.push_back("--use-distributed-optimizer");
    if (settings.mixed_precision == cost::MixedPrecision::Bf16)
        a.push_back("--bf16");
    else if (settings.mixed_precision == cost::MixedPrecision::Fp16)
        a.push_back("--fp16");
    if (plan.pipeline_type == cost::PipelineType::GPipe)
        m.comments.push_back("GPipe schedule: Megatron runs 1F1B (less activation memory than costed)");
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
    s += "# "
        + commentLine("plan: pp " + std::to_string(plan.pp) + ", chunks " + std::to_string(plan.chunks)
            + ", global batch " + std::to_string(plan.gbsz) + "; layers " + plan.layerSummary())
        + "\n";
    s += "# Megatron: tp " + std::to_string(m.tensor_parallel) + ", pp " + std::to_string(m.pipeline_parallel) + ", cp "
        + std::to_string(m.context_parallel) + ", dp " + std::to_string(m.data_parallel) + "\n";
    if (!m.comments.empty())
        s += "# Not expressible in Megatron-LM:\n";
    for (const std::string& comment : m.comments)
        s += "#   " + commentLine(comment) + "\n";
    s += "MEGATRON_ARGS=(\n";
    for (const std::string& argument : m.arguments)
        s += "    " + argument + "\n";
    s += ")\n";
    s += "# torchrun --nnodes " + std::to_string(settings.num_nodes) + " --nproc-per-node "
        + std::to_string(settings.num_gpus_per_node)
        + " pretrain_gpt.py \"${MEGATRON_ARGS[@]}\" <data, tokenizer and optimizer arguments>\n";
    return s;
}

} // namespace stratex::exporting
