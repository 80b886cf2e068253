// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli evaluate: Galvatron's cost of a given strategy JSON, per layer and per stage.
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "app/cli/cli_command.h"
#include "core/megatron/framework_support.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/search_options.h"
#include "app/cli/setting_options.h"
#include "app/cli/stratex_options.h"
#include "app/cli/stratex_report.h"
#include "core/common/error.h"
#include "core/export/plan_json.h"
#include "core/megatron/estimate_json.h"
#include "core/megatron/memory_ledger_explain.h"
#include "core/megatron/plan_file.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/galvatron/evaluate.h"
#include "core/galvatron/search_setting_table.h"
#include "core/galvatron/strategy_file.h"

namespace stratex::cli {

namespace {

std::string number(const char* format, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

std::string evaluationText(const galvatron::Evaluation& ev)
{
    const galvatron::Plan& p = ev.plan;
    std::string text = "Plan: gbsz " + std::to_string(p.gbsz) + ", chunks " + std::to_string(p.chunks) + ", pp "
        + std::to_string(p.pp) + ", world " + std::to_string(p.world) + ", "
        + std::string(galvatron::pipelineTypeName(p.pipeline_type)) + "\n";
    text += "  time cost " + number("%.17g", p.time_cost_s) + " s/iteration, "
        + number("%.6f", p.throughput_samples_per_s) + " samples/s\n";
    text += "  embedding / LM head: " + p.embedding.notation() + " (vtp " + std::to_string(p.vtp()) + ", vsp "
        + std::to_string(p.vsp()) + ", embed_sdp " + std::to_string(p.embedSdp()) + ")\n";
    text += "Stages:\n";
    for (const galvatron::StageBreakdown& s : ev.stages) {
        text += "  " + std::to_string(s.stage) + ": layers " + std::to_string(s.first_layer) + "-"
            + std::to_string(s.first_layer + s.layers - 1) + ", " + number("%.6f", s.time_no_sync_s)
            + " s per micro-batch (" + number("%.6f", s.time_sync_s) + " with sync), memory "
            + std::to_string(s.memory_cost_mb) + " MB = layers " + std::to_string(s.layer_memory_mb) + " + embedding "
            + std::to_string(s.embedding_memory_mb) + " + buffer " + std::to_string(s.global_buffer_mb) + " + reserve "
            + std::to_string(ev.budget.reserve_mb) + ", remaining " + std::to_string(s.memory_remaining_mb) + " MB\n";
    }
    text += "Layers:\n";
    for (const galvatron::LayerBreakdown& l : ev.layers) {
        text += "  " + std::to_string(l.layer) + " (stage " + std::to_string(l.stage) + "): " + l.strategy.notation()
            + ", " + number("%.6f", l.time.sync_s) + " s (" + number("%.6f", l.time.no_sync_s) + " without sync), "
            + std::to_string(l.memory.weight_mb) + " MB\n";
    }
    for (const std::string& note : ev.notes)
        text += "note: " + note + "\n";
    return text;
}

// The worst rank's peak moment and every part alive then (issue 23): the rows the Search page's
// peak chart shows, from the same megatron::peakParts.
std::string peakText(const megatron::Estimate& estimate)
{
    if (!estimate.peak)
        return {};
    const megatron::PeakExplanation& peak = *estimate.peak;
    std::string text = "Peak: " + megatron::peakMomentText(peak) + "\n";
    char line[160];
    for (const megatron::PeakPart& part : megatron::peakParts(peak)) {
        std::snprintf(line, sizeof line, "  %-48s %10.0f MB%s\n", part.label.c_str(), part.mb,
            part.device ? "  (device)" : "");
        text += line;
    }
    // Per in-flight micro-batch, in the order they entered: its chunks on the rank and their bytes
    // (the JSON lists every micro-batch and chunk).
    std::vector<int> order;
    std::map<int, std::pair<int, double>> byMicrobatch; // chunks, MB
    for (const megatron::PeakHeldActivations& held : peak.held) {
        auto [it, added] = byMicrobatch.try_emplace(held.microbatch, 0, 0.0);
        if (added)
            order.push_back(held.microbatch);
        ++it->second.first;
        it->second.second += held.mb;
    }
    for (const int microbatch : order) {
        const auto& [chunks, mb] = byMicrobatch[microbatch];
        std::snprintf(line, sizeof line, "    micro-batch %d: %d chunk%s, %.0f MB\n", microbatch, chunks,
            chunks == 1 ? "" : "s", mb);
        text += line;
    }
    std::snprintf(line, sizeof line, "  %-48s %10.0f MB\n  %-48s %10.0f MB\n", "allocated at the peak",
        peak.allocated_mb, "device at the peak", peak.device_mb);
    return text + line;
}

// A stratex plan file, costed by the stratex model: its model and cluster, else the synthesized
// profiles', else the command line's.
int evaluatePlanFile(const CliParser& parser, const std::string& file)
{
    const megatron::StrategySearchSettings stratex = readStratexSettings(parser);
    if (stratex.costModel() == megatron::CostModelChoice::Galvatron)
        throw Error(file + ": a stratex plan file (Megatron's space) is costed by the stratex model, not Galvatron's");
    const megatron::PartialPlanFile plan = megatron::PartialPlanFile::load(file);
    settings::SettingNames given;
    galvatron::SearchSettings settings = readGivenSearchSettings(parser, given);
    settings::SettingNames givenModel;
    const galvatron::ModelSettings modelFlags = readModelOptions(parser, givenModel);
    megatron::StratexInputs inputs = stratexInputs(parser, stratex, settings, given, modelFlags, givenModel);
    inputs.base_model = plan.model();
    inputs.base_cluster = plan.cluster();
    inputs.base_label = file;
    if (hasProfileOptions(parser)) {
        const galvatron::SearchInputs profiles = loadSearchInputs(parser, settings, given);
        if (profiles.synthesis) {
            if (!inputs.base_model)
                inputs.base_model = profiles.synthesis->model;
            if (!inputs.base_cluster)
                inputs.base_cluster = profiles.synthesis->cluster;
        }
    }
    const megatron::StratexTarget target = cli::resolveStratexTarget(inputs);
    std::vector<std::string> assumptions;
    megatron::ParallelStrategy strategy
        = plan.strategy(target.model, static_cast<long long>(target.cluster.worldSize()), &assumptions);
    // --compile given: the plan costed with its blocks compiled or eager (docs/kernels.md, "Eager and
    // compiled blocks"); before --tp-comm-overlap, which torchtitan's AsyncTP ties to compile.
    if (givenSettingOptions(parser, megatron::strategySearchSettingTable()).contains("compile"))
        strategy.compile = stratex.resolvedSpace().compile;
    // --cuda-graphs given: the plan costed with those CUDA graphs (docs/kernels.md §7); one its
    // framework or model cannot capture so is refused with the plan's other problems.
    if (givenSettingOptions(parser, megatron::strategySearchSettingTable()).contains("cuda-graphs"))
        strategy.cuda_graphs = stratex.resolvedSpace().cuda_graphs;
    // --tp-comm-overlap given: the plan costed with TP communication overlap on or off, where its
    // framework and layout allow it, as the search sets it (megatron::tpCommOverlapProblem).
    if (givenSettingOptions(parser, megatron::strategySearchSettingTable()).contains("tp-comm-overlap")) {
        strategy.tp_comm_overlap = false;
        const std::string problem = megatron::tpCommOverlapProblem(strategy);
        strategy.tp_comm_overlap = stratex.space.tp_comm_overlap && problem.empty();
        if (stratex.space.tp_comm_overlap && !problem.empty())
            printErr("note: --tp-comm-overlap 1 not applied to " + file + ": " + problem + "\n");
    }
    // --attention-kernel given: the plan costed with that kernel (docs/kernels.md §6).
    if (givenSettingOptions(parser, megatron::strategySearchSettingTable()).contains("attention-kernel")) {
        const megatron::StrategySpace space = stratex.resolvedSpace();
        strategy.attention_kernel = space.attention_kernel;
        strategy.flash_attention
            = space.flash_attention && space.attention_kernel != hardware::AttentionKernel::Unfused;
    }
    // --fp8-recipe given: the plan's FP8 casts costed under that recipe (docs/kernels.md §8); a plan
    // not in FP8 is refused with it (megatron::fp8RecipeProblem, in the estimate's problems).
    if (givenSettingOptions(parser, megatron::strategySearchSettingTable()).contains("fp8-recipe"))
        strategy.fp8_recipe = megatron::parseFp8Recipe(stratex.fp8_recipe).value_or(megatron::Fp8Recipe::Default);
    // --microbatch-group-size given: the plan costed with that interleaved micro-batch group N
    // (docs/memory-model.md, "Micro-batch group N"); Megatron-Core's range is checked with the
    // strategy's other rules (estimate.problems). pp is the default and reads as unset.
    if (parser.isSet(QStringLiteral("microbatch-group-size"))) {
        const int n = parser.intValue(QStringLiteral("microbatch-group-size"), 0);
        strategy.microbatch_group_size = n == strategy.pp ? 0 : n;
    }
    megatron::EstimateOptions options;
    options.memory_limit_mb = target.memory_limit_mb;
    options.explain_peak = true;
    const megatron::Estimate estimate
        = megatron::estimate(target.model, strategy, hardware::HardwareModel(target.cluster, target.efficiency), options);
    const megatron::PlanEvidence evidence = megatron::stratexPlanEvidence(target.model, target.cluster, strategy);
    for (const std::string& assumption : assumptions)
        printErr("note: " + file + " does not say; assumed " + assumption + "\n");
    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::ordered_json out = megatron::toJson(estimate);
        out["cost_model"] = "stratex";
        out["assumptions"] = assumptions;
        out["evidence"] = evidenceJson(evidence);
        out["memory_margin"] = memoryMarginJson(estimate);
        out["model_time_evidence"] = modelTimeJson(target.model);
        printJson(out);
    } else {
        printOut("Stratex cost model: " + target.model.name + " on " + std::to_string(target.cluster.num_nodes) + " x "
            + std::to_string(target.cluster.gpus_per_node) + " " + target.cluster.gpu.name + "\n"
            + estimateText(estimate) + peakText(estimate) + evidenceLine(evidence) + "\n" + modelTimeLine(target.model)
            + "\n" + memoryMarginLine(estimate) + "\n");
    }
    if (!estimate.problems.empty())
        throw Error(file + ": " + std::string(megatron::frameworkProject(estimate.strategy.framework))
            + " would refuse this strategy: " + estimate.problems.front());
    return kExitOk;
}

int runEvaluate(const QStringList& args)
{
    CliParser parser(QStringLiteral("evaluate"),
        QStringLiteral("Costs a strategy file. A Galvatron strategy JSON (any version) is costed with Galvatron main's "
                       "cost model: time per iteration, throughput, memory per stage, and the breakdown per layer and "
                       "per stage. A stratex plan file (\"format\": \"stratex-plan\": Megatron's TP, PP and layout, "
                       "VPP, CP, EP, ZeRO, recompute) is costed with the stratex model, on its model and cluster or "
                       "the ones the command line gives (--profiles of a synthesized set, --model, --cluster, "
                       "--gpu). The "
                       "strategy's own pipeline_type and default_dp_type win over the flags. A strategy file written "
                       "by Stratex gives its search settings, and without --profiles it is costed on profiles "
                       "estimated from its model and cluster.\n\n")
            + QString::fromUtf8(
                galvatron::unevenBatchExplanation().data(), qsizetype(galvatron::unevenBatchExplanation().size())));
    parser.option(QStringLiteral("strategy"), QStringLiteral("FILE"),
        QStringLiteral("The strategy JSON: Galvatron's (or Stratex's with its model, cluster and search settings), or "
                       "a stratex plan file."));
    addProfileOptions(parser);
    addSearchSettingsOptions(parser);
    addModelOptions(parser);
    addStratexOptions(parser);
    parser.option(QStringLiteral("microbatch-group-size"), QStringLiteral("N"),
        QStringLiteral("A stratex plan file with the interleaved schedule: cost it with N contiguous micro-batches per "
                       "model chunk (Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage, Llama 3's "
                       "flexible N; pp <= N <= micro-batches, a last group of 0 or at least pp). Default: the plan's "
                       "microbatch_group_size, else pp."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print JSON instead of text."));
    parser.inputLimitOption();
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(QStringLiteral("strategy")))
        parser.usageError(QStringLiteral("--strategy is required"));

    const std::string file = parser.value(QStringLiteral("strategy")).toStdString();
    if (megatron::isPlanFile(file))
        return evaluatePlanFile(parser, file);
    if (readStratexSettings(parser).costModel() == megatron::CostModelChoice::Stratex)
        throw Error(file + ": the stratex cost model costs stratex plan files (\"format\": \"stratex-plan\", a "
            + "Megatron-space \"strategy\"); this is a Galvatron strategy file");
    const galvatron::StrategyFile strategy = galvatron::StrategyFile::load(file);
    galvatron::StrategyRun run = readStrategyRun(parser, strategy);
    run.settings.settle_bsz = strategy.global_bsz;
    std::string why;
    const std::shared_ptr<const galvatron::CostModel> costModel = strategyCostModel(parser, run, why);
    if (!costModel)
        throw Error(strategy.file + ": cannot cost the strategy: " + why);
    const galvatron::Plan plan = galvatron::planFromStrategyFile(strategy, run.settings);
    const galvatron::Evaluation ev = galvatron::evaluate(*costModel, run.settings, plan);
    if (parser.isSet(QStringLiteral("json")))
        printJson(exporting::evaluationJson(ev));
    else
        printOut(evaluationText(ev));
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("evaluate"),
    QStringLiteral("Cost a strategy file (Galvatron's or a stratex plan), per stage"), 31, runEvaluate });

} // namespace

} // namespace stratex::cli
