// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli search: Galvatron main's strategy search on profile files, with the top plans and
// the throughput / memory Pareto set, and the exports of the best plan.
#include <cstdio>
#include <utility>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/search_options.h"
#include "app/cli/setting_options.h"
#include "app/cli/stratex_options.h"
#include "app/cli/stratex_search.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/common/plan_list.h"
#include "core/common/progress.h"
#include "core/export/plan_export.h"
#include "core/export/plan_json.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/search_setting_table.h"

namespace stratex::cli {

namespace {

std::string list(const std::vector<int>& values)
{
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

std::string planLine(const galvatron::Plan& p)
{
    return fixed(p.throughput_samples_per_s, 3) + " samples/s, " + fixed(p.time_cost_s, 4) + " s/iter, peak "
        + std::to_string(p.peakMemoryMb()) + " MB, gbsz " + std::to_string(p.gbsz) + ", chunks "
        + std::to_string(p.chunks) + ", pp " + std::to_string(p.pp) + ", "
        + std::string(galvatron::tpSpModeName(p.tp_sp_mode)) + ", vtp " + std::to_string(p.vtp())
        + (p.vsp() ? " (SP)" : "") + (p.embedSdp() ? " ZeRO-3" : "") + ": " + p.layerSummary();
}

std::string resultText(const galvatron::SearchResult& r)
{
    std::string text = "Searched " + std::to_string(r.stats.tasks) + " tasks in " + std::to_string(r.stats.families)
        + " families: " + std::to_string(r.stats.dp_calls) + " stage knapsacks (Galvatron main would run "
        + std::to_string(r.stats.galvatron_dp_calls) + " DP calls) in " + fixed(r.stats.search_time_s, 3) + " s on "
        + std::to_string(r.stats.threads) + " thread(s)\n";
    if (!r.best) {
        text += "No valid configuration found.\n";
    } else {
        const galvatron::Plan& b = *r.best;
        char time[64];
        std::snprintf(time, sizeof time, "%.17g", b.time_cost_s);
        text += "Best: gbsz " + std::to_string(b.gbsz) + ", chunks " + std::to_string(b.chunks) + ", pp "
            + std::to_string(b.pp) + " (task " + std::string(galvatron::tpSpModeName(b.tp_sp_mode)) + ", global buffer TP "
            + std::to_string(b.global_buffer_tp) + ")\n";
        text += "  time cost " + std::string(time) + " s/iteration, " + fixed(b.throughput_samples_per_s, 6)
            + " samples/s\n";
        text += "  memory cost per stage " + list(b.memory_cost_mb_per_stage) + " MB, remaining "
            + list(b.memory_remaining_mb_per_stage) + " MB\n";
        text += "  embedding / LM head: vtp " + std::to_string(b.vtp()) + ", vsp " + std::to_string(b.vsp())
            + ", embed_sdp " + std::to_string(b.embedSdp()) + "\n";
        text += "  layers: " + b.layerSummary() + "\n";
        text += "Top plans (best per pp, TP/SP mode, gbsz, chunks):\n";
        for (std::size_t i = 0; i < r.top.size(); ++i)
            text += "  " + std::to_string(i + 1) + ". " + planLine(r.top[i]) + "\n";
        text += "Pareto set (throughput vs peak memory):\n";
        for (const galvatron::Plan& p : r.pareto)
            text += "  " + planLine(p) + "\n";
    }
    for (const std::string& note : r.notes)
        text += "note: " + note + "\n";
    return text;
}

// The flags that write Galvatron-space exports; the stratex model writes its plan file with --out
// and leaves the other formats to `export`.
constexpr const char* kGalvatronExportFlags[]
    = { "paddle-out", "paddle-script", "megatron-args", "pytorch-schedule", "torchtitan" };

int searchWithStratexModel(const CliParser& parser, const megatron::StrategySearchSettings& stratex,
    const galvatron::SearchSettings& settings, const settings::SettingNames& given, const galvatron::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel, const std::optional<profile::synth::SynthesisRecord>& record)
{
    for (const char* flag : kGalvatronExportFlags) {
        if (parser.isSet(QString::fromUtf8(flag)))
            throw Error(std::string("--") + flag + " exports a Galvatron-space plan; with the stratex cost model write "
                + "the plan with --out FILE and run 'stratex-cli export --strategy FILE --to ...'");
    }
    const std::vector<std::string> ignored = megatron::galvatronOnlyFlags(given);
    if (!ignored.empty()) {
        std::string list;
        for (const std::string& flag : ignored)
            list += (list.empty() ? "" : ", ") + flag;
        printErr("warning: the stratex cost model does not read " + list + " (Galvatron's search settings)\n");
    }
    megatron::StratexInputs inputs = stratexInputs(parser, stratex, settings, given, modelFlags, givenModel);
    if (record)
        megatron::adoptSynthesizedSet(inputs, *record);
    else if (hasProfileOptions(parser))
        inputs.measured_profiles = parser.isSet(QStringLiteral("profiles"))
            ? parser.value(QStringLiteral("profiles")).toStdString()
            : std::string("--hardware");
    inputs.top = parser.intValue(QStringLiteral("top"), kDefaultTopPlans, 1);
    inputs.threads = parser.intValue(QStringLiteral("threads"), 0, 1);
    std::vector<std::string> warnings;
    const megatron::StrategySearchRequest request = megatron::resolveStratexSearch(inputs, &warnings);
    for (const std::string& warning : warnings)
        printErr("warning: " + warning + "\n");
    return runStratexSearch(parser, request);
}

int runSearch(const QStringList& args)
{
    CliParser parser(QStringLiteral("search"),
        QStringLiteral("Galvatron main's strategy search (same tasks, knapsack and tie-breaking, same answer) on "
                       "Galvatron profile files, on all cores. Prints the best plan, the top plans and the Pareto "
                       "set of throughput against peak memory.\n\n")
            + QString::fromUtf8(
                galvatron::unevenBatchExplanation().data(), qsizetype(galvatron::unevenBatchExplanation().size())));
    addProfileOptions(parser);
    addSearchSettingsOptions(parser);
    addModelOptions(parser);
    addStratexOptions(parser);
    parser.option(
        QStringLiteral("threads"), QStringLiteral("N"), QStringLiteral("Worker threads (default: all cores)."));
    parser.option(QStringLiteral("top"), QStringLiteral("K"), QStringLiteral("Plans in the top list (default %1).").arg(kDefaultTopPlans));
    parser.option(QStringLiteral("out"), QStringLiteral("FILE"),
        QStringLiteral(
            "Write the best plan as a strategy JSON, which `export` and `evaluate` read back: with Galvatron's cost "
            "model Galvatron's keys and format (with world_size) plus the model, the cluster and the search settings; "
            "with the stratex model a stratex plan file (model, cluster, Megatron strategy, prediction)."));
    parser.option(QStringLiteral("paddle-out"), QStringLiteral("FILE"),
        QStringLiteral("Write the best plan as PaddleNLP's fine_grained_config.json."));
    parser.option(QStringLiteral("paddle-script"), QStringLiteral("FILE"),
        QStringLiteral("Write a PaddleNLP fine-grained launch script for the best plan."));
    parser.option(QStringLiteral("megatron-args"), QStringLiteral("FILE"),
        QStringLiteral("Write Megatron-LM pretrain_gpt.py arguments for the best plan (with comments for what "
                       "Megatron cannot express)."));
    parser.option(QStringLiteral("pytorch-schedule"), QStringLiteral("FILE"),
        QStringLiteral("Write the best plan's pipeline schedule as torch.distributed.pipelining's CSV."));
    parser.option(QStringLiteral("torchtitan"), QStringLiteral("FILE"),
        QStringLiteral("Write a torchtitan main config module (Python, --module/--config) for the best plan."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print JSON instead of text."));
    parser.inputLimitOption();
    parser.workBudgetOption();
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));

    settings::SettingNames given;
    galvatron::SearchSettings settings = readGivenSearchSettings(parser, given);
    settings.lift_work_budget = parser.liftsWorkBudget();
    const int threads = parser.intValue(QStringLiteral("threads"), 0, 1);
    const int top = parser.intValue(QStringLiteral("top"), kDefaultTopPlans, 0);
    settings::SettingNames givenModel;
    const galvatron::ModelSettings modelFlags = readModelOptions(parser, givenModel);
    galvatron::adoptPresetShape(settings, given, modelFlags, givenModel);
    // A preset's shape is the user's choice: a synthesized set does not override it.
    settings::SettingNames settled = given;
    if (givenModel.contains("model"))
        settled.insert({ "num-layers", "hidden-size", "num-heads", "vocab-size" });
    // The cost model: the stratex one for a synthesized set (its record names the model and the
    // cluster) or a model without profiles (auto), or as asked.
    const megatron::StrategySearchSettings stratex = readStratexSettings(parser);
    std::optional<profile::synth::SynthesisRecord> record;
    if (parser.isSet(QStringLiteral("profiles")))
        record = profile::synth::readSynthesisRecord(parser.value(QStringLiteral("profiles")).toStdString());
    const megatron::CostModelChoice costModel = megatron::resolveCostModel(stratex.costModel(), hasProfileOptions(parser),
        record.has_value(),
        givenModel.contains("model") || parser.isSet(QStringLiteral("cluster")) || !stratex.gpu.empty());
    if (costModel == megatron::CostModelChoice::Stratex)
        return searchWithStratexModel(parser, stratex, settings, given, modelFlags, givenModel, record);

    settings.validate();
    const galvatron::SearchInputs inputs = loadSearchInputs(parser, settings, settled);

    // The model and the cluster the exports carry: a synthesized set's, with the flags given.
    const std::pair<QString, exporting::ExportFormat> exports[] = {
        { QStringLiteral("out"), exporting::ExportFormat::Galvatron },
        { QStringLiteral("paddle-out"), exporting::ExportFormat::PaddleConfig },
        { QStringLiteral("paddle-script"), exporting::ExportFormat::PaddleScript },
        { QStringLiteral("megatron-args"), exporting::ExportFormat::Megatron },
        { QStringLiteral("pytorch-schedule"), exporting::ExportFormat::PytorchSchedule },
        { QStringLiteral("torchtitan"), exporting::ExportFormat::Torchtitan },
    };
    const exporting::SearchedModel searched = exporting::searchedModel(inputs, settings, given, modelFlags, givenModel);
    const galvatron::ResolvedModel& resolved = searched.model;
    for (const std::string& warning : resolved.warnings)
        printErr("warning: " + warning + "\n");
    for (const auto& [option, format] : exports) {
        if (parser.isSet(option) && exporting::exportNeedsModel(format) && !resolved.model)
            throw Error(galvatron::missingModelMessage("--" + option.toStdString(),
                "the profiles (measured, not synthesized) and the command line", resolved.missing));
    }
    exporting::ExportContext context;
    context.model = resolved.model;
    context.cluster = searched.cluster;
    context.cost_model = std::make_shared<const galvatron::CostModel>(galvatron::buildCostModel(inputs, settings));

    // Ctrl-C cancels the search within a knapsack layer (exit 130, nothing printed).
    galvatron::SearchResult result;
    {
        InterruptProgress progress;
        result = galvatron::search(*context.cost_model, settings, progress, threads, top);
        progress.finish();
    }

    if (inputs.estimated)
        result.notes.push_back("the profiles are estimated by 'stratex-cli profile synth' (stratex_synthesis.json), "
                               "not measured: profile the cluster before planning a real run");
    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::ordered_json json = exporting::searchResultJson(result);
        if (inputs.estimated) // only then: the documented keys stay exactly as they are for measured profiles
            json["estimated_profiles"] = true;
        printJson(json);
    } else {
        printOut(resultText(result));
    }
    if (parser.isSet(QStringLiteral("json"))) {
        for (const std::string& note : result.notes)
            printErr("note: " + note + "\n");
    }
    if (!result.best)
        throw Error(
            "no valid configuration found within " + std::to_string(settings.memory_constraint_gb) + " GB per GPU");

    // Every export is made first and the files written as one set: a failing one (a refused
    // format, a missing folder) leaves none of them (issue 26: the ones before it stayed written).
    std::vector<exporting::ExportedFile> exported;
    std::vector<PathToWrite> outputs;
    exported.reserve(std::size(exports)); // `file` below points into it: no reallocation
    for (const auto& [option, format] : exports) {
        if (!parser.isSet(option))
            continue;
        exported.push_back(exporting::exportPlan(format, *result.best, settings, context));
        const exporting::ExportedFile& file = exported.back();
        for (const exporting::ExportNote& note : file.notes)
            printErr("warning: " + exporting::exportNoteLine(note) + "\n");
        outputs.push_back({ parser.value(option).toStdString(),
            [&file](const ContentSink& sink) { sink(file.text); },
            file.executable ? FileMode::Executable : FileMode::Regular });
    }
    writePathsAtomically(outputs);
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("search"),
    QStringLiteral("Galvatron strategy search: best plan, top plans, Pareto set"), 30, runSearch });

} // namespace

} // namespace stratex::cli
