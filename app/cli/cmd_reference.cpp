// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli reference: the stratex cost model against published measurements of real runs.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/reference_claims.h"
#include "app/cli/reference_rankings.h"
#include "core/common/json_output.h"
#include "core/runs/calibration.h"
#include "core/common/number_format.h"
#include "core/runs/cross_validation.h"
#include "core/runs/reference_run.h"
#include "core/hardware/cluster_description.h"
#include "core/hardware/cluster_json.h"

namespace stratex::cli {

namespace {

// Installed beside the binary (share/stratex/reference-runs) or, in a build tree, the sources'.
QString defaultRunsDir()
{
    const QString installed
        = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/stratex/reference-runs");
    if (QDir(installed).exists())
        return installed;
    return QStringLiteral(STRATEX_SOURCE_REFERENCE_RUNS);
}

// What the memory summary compares (issue 23): each record's published number against the
// prediction of the same kind. The presets fit no memory parameter (memory_reserve_gb and
// activation_fragmentation are fitted only when named, core/runs/calibration.cpp), so
// cross-validation's memory errors are those of the model itself, with nothing fitted to memory.
constexpr const char* kMemoryHeading
    = "memory, predicted / measured peak - 1 of the number each record publishes (allocated: "
      "max_memory_allocated; reserved: max_memory_reserved; device: nvidia-smi), no parameter fitted to memory:\n";

struct Summary {
    double mae = 0;
    int runs = 0;
    int trainedButOom = 0;
};

Summary summarise(const std::vector<runs::ReferenceComparison>& all, bool fit)
{
    std::vector<runs::ReferenceComparison> part;
    std::vector<runs::MemoryOutcomeRow> outcomes;
    Summary summary;
    for (const auto& c : all) {
        if (c.run->fit != fit || !c.estimate.problems.empty() || !c.run->measured_time)
            continue;
        part.push_back(c);
        outcomes.push_back(runs::memoryOutcomeRow(c));
    }
    summary.trainedButOom = int(runs::memoryOutcomes(outcomes).trained_called_oom.size());
    summary.mae = runs::meanAbsoluteError(part);
    summary.runs = int(part.size());
    return summary;
}

nlohmann::ordered_json summaryJson(const Summary& s)
{
    return { { "runs", s.runs }, { "mean_absolute_throughput_error", s.mae },
        { "trained_but_predicted_oom", s.trainedButOom } };
}

// The fit check against what the runs did (runs::memoryOutcomes): counts and the misses by id.
nlohmann::ordered_json memoryOutcomesJson(const runs::MemoryOutcomes& o)
{
    const auto ids = [](const std::vector<runs::MemoryOutcomeRow>& rows) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const runs::MemoryOutcomeRow& row : rows)
            out.push_back({ { "id", row.id }, { "predicted_device_peak_gib", row.predicted_device_peak_gib },
                { "memory_limit_gib", row.memory_limit_gib } });
        return out;
    };
    return { { "trained", o.trained }, { "trained_called_oom", ids(o.trained_called_oom) },
        { "out_of_memory", o.out_of_memory }, { "oom_called_fitting", ids(o.oom_called_fitting) } };
}

// Memory columns (issue 23): for a record that publishes peak memory, which number it is and the
// prediction of that kind, with the allocated and device peaks beside it.
void addMemoryColumns(nlohmann::ordered_json& row, const runs::ReferenceComparison& c)
{
    const runs::ReferenceRun& run = *c.run;
    row["framework"] = megatron::frameworkName(run.strategy.framework);
    row["framework_inferred"] = run.framework_inferred;
    if (!c.estimate.problems.empty())
        return;
    row["predicted_allocated_peak_gib"] = hardware::mbToGib(c.estimate.allocated_peak_mb);
    row["predicted_device_peak_gib"] = hardware::mbToGib(c.estimate.device_peak_mb);
    if (!run.peak_memory_gib || !c.memory_error)
        return;
    row["measured_peak_memory_kind"] = runs::peakMemoryKindName(run.peak_memory_kind);
    row["measured_peak_memory_kind_inferred"] = run.peak_memory_kind_inferred;
    row["predicted_peak_memory_gib"] = *c.predicted_memory_gib;
    row["memory_error"] = *c.memory_error;
}

std::string memoryLine(const runs::ReferenceComparison& c)
{
    const runs::ReferenceRun& run = *c.run;
    if (!run.peak_memory_gib || !c.memory_error)
        return {};
    return "  memory (" + std::string(megatron::frameworkName(run.strategy.framework))
        + (run.framework_inferred ? ", inferred from the source" : "") + "): measured "
        + fixed(*run.peak_memory_gib, 1) + " GiB " + std::string(runs::peakMemoryKindName(run.peak_memory_kind))
        + (run.peak_memory_kind_inferred ? " (inferred)" : "") + ", predicted " + fixed(*c.predicted_memory_gib, 1)
        + " GiB, error " + signedPercent(*c.memory_error) + "; allocated peak "
        + fixed(hardware::mbToGib(c.estimate.allocated_peak_mb), 1) + " GiB, device peak "
        + fixed(hardware::mbToGib(c.estimate.device_peak_mb), 1) + " GiB\n";
}

nlohmann::ordered_json memorySummaryJson(const runs::MemoryErrorSummary& s)
{
    nlohmann::ordered_json out = { { "framework", megatron::frameworkName(s.framework) } };
    if (s.kind)
        out["kind"] = runs::peakMemoryKindName(*s.kind);
    out["records"] = s.records;
    out["mean_absolute_memory_error"] = s.mean_absolute_error;
    out["mean_memory_error"] = s.mean_error;
    out["max_absolute_memory_error"] = s.max_absolute_error;
    return out;
}

nlohmann::ordered_json memorySummariesJson(const std::vector<runs::MemoryErrorSummary>& summaries)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const runs::MemoryErrorSummary& s : summaries)
        out.push_back(memorySummaryJson(s));
    return out;
}

// "memory, torchtitan: 17 records, mean absolute memory error 10.5 % (...)", then one line per kind
// of number the framework's records publish (issue 23: which number, against which prediction).
std::string memorySummaryText(
    const std::vector<runs::MemoryErrorSummary>& byFramework, const std::vector<runs::MemoryErrorSummary>& byKind)
{
    auto details = [](const runs::MemoryErrorSummary& s) {
        return std::to_string(s.records) + " records, mean absolute memory error " + fixed(s.mean_absolute_error * 100, 1)
            + " % (mean " + signedPercent(s.mean_error) + ", largest " + fixed(s.max_absolute_error * 100, 1) + " %)\n";
    };
    std::string text;
    for (const runs::MemoryErrorSummary& s : byFramework) {
        text += "memory, " + std::string(megatron::frameworkName(s.framework)) + ": " + details(s);
        for (const runs::MemoryErrorSummary& k : byKind) {
            if (k.framework == s.framework && k.kind)
                text += "  " + std::string(runs::peakMemoryKindName(*k.kind)) + " peak: " + details(k);
        }
    }
    if (byFramework.empty())
        text += "memory: no record publishes peak memory\n";
    return text;
}

// Which parameters a family's runs identified (runs::identifyParameters, docs/calibration.md).
nlohmann::ordered_json identificationJson(const runs::FamilyIdentification& identification)
{
    nlohmann::ordered_json out = { { "family", identification.family }, { "prior", identification.prior },
        { "runs", identification.runs } };
    out["parameters"] = nlohmann::ordered_json::array();
    for (const runs::ParameterDecision& d : identification.parameters)
        out["parameters"].push_back({ { "name", d.name }, { "fitted", d.fitted },
            { "informative_runs", d.informative_runs }, { "prior_sd_log", d.prior_sd },
            { "posterior_sd_log", d.posterior_sd }, { "reason", d.reason } });
    return out;
}

// --fit: the presets' efficiencies fitted on the "fit" runs, per GPU family, as efficiencyFor()
// stores them (hardware_model.cpp), with the fit and hold-out error before and after.
int printPresetFit(const std::vector<runs::ReferenceRun>& runs, const runs::CalibrationOptions& options, bool json)
{
    const std::vector<runs::PresetFit> fits = runs::fitPresets(runs, options);
    auto efficiencyOf = [&fits](const runs::ReferenceRun& run) {
        for (const runs::PresetFit& fit : fits) {
            if (fit.family == hardware::presetFamily(run.cluster.gpu.name))
                return fit.result.fitted;
        }
        return runs::familyPrior(hardware::presetFamily(run.cluster.gpu.name), run.cluster.gpu, fits);
    };
    std::vector<runs::ReferenceComparison> before;
    std::vector<runs::ReferenceComparison> after;
    for (const runs::ReferenceRun& run : runs) {
        before.push_back(runs::compareWithRun(run, hardware::datasheetEfficiency(run.cluster.gpu)));
        after.push_back(runs::compareWithRun(run, efficiencyOf(run)));
    }
    nlohmann::ordered_json out;
    out["families"] = nlohmann::ordered_json::array();
    std::string text;
    for (const runs::PresetFit& fit : fits) {
        out["families"].push_back(
            { { "family", fit.family }, { "gpus", fit.gpus }, { "runs", fit.result.before.size() },
                { "parameters", fit.result.parameters }, { "iterations", fit.result.iterations },
                { "cost_before", fit.result.cost_before }, { "cost_after", fit.result.cost_after },
                { "efficiency", hardware::toJson(fit.result.fitted) }, { "at_bound", fit.result.at_bound },
                { "identification", identificationJson(fit.identification) } });
        text += fit.family + " (" + std::to_string(fit.result.before.size()) + " fit runs, "
            + std::to_string(fit.result.iterations) + " iterations):";
        for (const hardware::EfficiencyField& field : hardware::efficiencyFields())
            text += std::string(" ") + field.name + " " + fixed(fit.result.fitted.*field.member, 4);
        text += "\n";
        // A parameter at a bound of its range stands in for a mechanism the model lacks (issue 22).
        for (const std::string& name : fit.result.at_bound) {
            const hardware::EfficiencyField* field = hardware::findEfficiencyField(name);
            text += "  at a bound: " + name + " " + fixed(fit.result.fitted.*field->member, 4) + " (range "
                + fixed(field->minimum, 2) + " to " + fixed(field->maximum, 2) + ")\n";
        }
        text += "  " + runs::identificationText(fit.identification);
    }
    const Summary fitBefore = summarise(before, true);
    const Summary fitAfter = summarise(after, true);
    const Summary holdoutBefore = summarise(before, false);
    const Summary holdoutAfter = summarise(after, false);
    out["fit"] = { { "before", summaryJson(fitBefore) }, { "after", summaryJson(fitAfter) } };
    out["holdout"] = { { "before", summaryJson(holdoutBefore) }, { "after", summaryJson(holdoutAfter) } };
    if (json) {
        printOut(jsonText(out, 2, "the JSON report") + "\n");
        return kExitOk;
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].measured_time)
            text += "  " + runs[i].id + (runs[i].fit ? " [fit] " : " [holdout] ") + signedPercent(before[i].throughput_error)
            + " -> " + signedPercent(after[i].throughput_error) + (after[i].predicted_oom ? " (predicted OOM)" : "") + "\n";
    text += "fit: mean absolute throughput error " + fixed(fitBefore.mae * 100, 1) + " % -> "
        + fixed(fitAfter.mae * 100, 1) + " %, trained runs predicted OOM " + std::to_string(fitBefore.trainedButOom)
        + " -> " + std::to_string(fitAfter.trainedButOom) + "\n";
    text += "holdout: mean absolute throughput error " + fixed(holdoutBefore.mae * 100, 1) + " % -> "
        + fixed(holdoutAfter.mae * 100, 1) + " %, trained runs predicted OOM "
        + std::to_string(holdoutBefore.trainedButOom) + " -> " + std::to_string(holdoutAfter.trainedButOom) + "\n";
    printOut(text);
    return kExitOk;
}

// The options of the preset fit, for --fit and --cross-validate alike.
runs::CalibrationOptions presetFitOptions(const CliParser& parser)
{
    runs::CalibrationOptions options;
    options.robust_scale = 0.15;
    options.lift_work_budget = parser.liftsWorkBudget();
    if (parser.isSet(QStringLiteral("fit-parameters"))) {
        options.parameters.clear();
        for (const QString& name : parser.value(QStringLiteral("fit-parameters")).split(QLatin1Char(',')))
            options.parameters.push_back(name.trimmed().toStdString());
    }
    return options;
}

nlohmann::ordered_json errorGroupJson(const runs::ErrorGroup& g)
{
    return { { "name", g.name }, { "runs", g.runs }, { "mean_absolute_throughput_error", g.mean_absolute_error },
        { "mean_throughput_error", g.mean_error } };
}

std::string errorGroupLine(const runs::ErrorGroup& g)
{
    if (g.runs == 0)
        return "  " + g.name + ": no runs\n";
    return "  " + g.name + ": " + fixed(g.mean_absolute_error * 100, 1) + " % mean absolute (" + signedPercent(g.mean_error)
        + " mean), " + std::to_string(g.runs) + " runs\n";
}

// --cross-validate: leave one source out (runs::crossValidate), the honest error on every run.
int printCrossValidation(
    const std::vector<runs::ReferenceRun>& runs, const runs::CalibrationOptions& options, bool json)
{
    const auto start = std::chrono::steady_clock::now();
    const runs::CrossValidation cv = runs::crossValidate(runs, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (json) {
        nlohmann::ordered_json out;
        out["folds"] = cv.folds.size();
        out["fold_fits"] = nlohmann::ordered_json::array();
        for (const runs::CrossValidationFold& fold : cv.folds) {
            nlohmann::ordered_json families = nlohmann::ordered_json::array();
            for (const runs::FamilyIdentification& f : fold.families)
                families.push_back(identificationJson(f));
            out["fold_fits"].push_back({ { "left_out", fold.left_out }, { "families", families } });
        }
        out["time_s"] = seconds;
        out["threads"] = cv.threads;
        out["overall"] = errorGroupJson(cv.overall);
        for (const auto& [key, groups] : { std::pair { "by_source", &cv.by_source },
                 std::pair { "by_family", &cv.by_family }, std::pair { "by_regime", &cv.by_regime } }) {
            out[key] = nlohmann::ordered_json::array();
            for (const runs::ErrorGroup& g : *groups)
                out[key].push_back(errorGroupJson(g));
        }
        out["runs"] = nlohmann::ordered_json::array();
        for (const runs::CrossValidatedRun& r : cv.runs) {
            nlohmann::ordered_json row = { { "id", r.id }, { "source", r.source }, { "family", r.family },
                { "use", r.fit ? "fit" : "holdout" }, { "regimes", r.regimes },
                { "measured_iteration_s", r.measured_iteration_s }, { "family_fitted", r.family_fitted } };
            if (!r.family_fitted)
                row["prior"] = r.prior;
            row["measured_time"] = r.measured_time;
            if (!r.costed) {
                row["problem"] = r.problem;
            } else if (r.measured_time) {
                row["predicted_iteration_s"] = r.predicted_iteration_s;
                row["throughput_error"] = r.throughput_error;
            }
            if (r.memory) {
                row["framework"] = megatron::frameworkName(r.memory->framework);
                row["measured_peak_memory_kind"] = runs::peakMemoryKindName(r.memory->kind);
                row["memory_error"] = r.memory->error;
            }
            out["runs"].push_back(std::move(row));
        }
        out["memory_by_framework"] = memorySummariesJson(cv.memory_by_framework);
        out["memory_by_framework_and_kind"] = memorySummariesJson(cv.memory_by_framework_and_kind);
        out["memory_outcomes"] = memoryOutcomesJson(cv.memory_outcomes);
        printOut(jsonText(out, 2, "the JSON report") + "\n");
        return kExitOk;
    }
    std::string text;
    for (const runs::CrossValidatedRun& r : cv.runs) {
        text += "  " + r.id + (r.fit ? " [fit] " : " [holdout] ")
            + (!r.costed           ? "cannot be costed: " + r.problem
                    : r.measured_time                 ? signedPercent(r.throughput_error)
                    : r.outcome && !r.outcome->trained ? runs::memoryOutcomeLine(*r.outcome)
                                                       : std::string("no time published (memory only)"))
            + (r.memory ? ", memory " + signedPercent(r.memory->error) : "")
            + (r.family_fitted ? "" : " (no other source fits " + r.family + ": its prior, " + r.prior + ")") + "\n";
    }
    // Per fold, per family: what its runs identified (fitted) and what kept the prior (inherited).
    text += "fits per fold (fitted: the fold's runs identify it; inherited: it keeps the family's prior):\n";
    for (const runs::CrossValidationFold& fold : cv.folds) {
        std::string leftOut;
        for (const std::string& source : fold.left_out)
            leftOut += (leftOut.empty() ? "" : ", ") + source;
        text += "  without " + (fold.left_out.size() == 1 ? leftOut : std::to_string(fold.left_out.size()) + " sources without fit runs") + ":\n";
        for (const runs::FamilyIdentification& f : fold.families) {
            text += "    " + f.family + " (" + std::to_string(f.runs) + " runs, prior " + f.prior + "):";
            for (const runs::ParameterDecision& d : f.parameters)
                text += " " + d.name + (d.fitted ? " fitted" : " inherited") + " (" + std::to_string(d.informative_runs)
                    + " informative runs, posterior sd " + fixed(d.posterior_sd, 2) + "/" + fixed(d.prior_sd, 2) + ")";
            text += "\n";
        }
    }
    text += "Leave-one-source-out cross-validation: " + std::to_string(cv.folds.size()) + " fits, "
        + std::to_string(cv.overall.runs) + " runs, each predicted by a fit that never saw its source (" + fixed(seconds, 1)
        + " s on " + std::to_string(cv.threads) + " thread(s))\n";
    text += "overall: " + fixed(cv.overall.mean_absolute_error * 100, 1) + " % mean absolute throughput error ("
        + signedPercent(cv.overall.mean_error) + " mean; > 0: predicted too fast)\n";
    text += "by source:\n";
    for (const runs::ErrorGroup& g : cv.by_source)
        text += errorGroupLine(g);
    text += "by GPU family:\n";
    for (const runs::ErrorGroup& g : cv.by_family)
        text += errorGroupLine(g);
    text += "by regime:\n";
    for (const runs::ErrorGroup& g : cv.by_regime)
        text += errorGroupLine(g);
    text += kMemoryHeading;
    text += memorySummaryText(cv.memory_by_framework, cv.memory_by_framework_and_kind);
    text += runs::memoryOutcomesText(cv.memory_outcomes);
    printOut(text);
    return kExitOk;
}

int runReference(const QStringList& args)
{
    CliParser parser(QStringLiteral("reference"),
        QStringLiteral("Costs every recorded real training run (resources/reference-runs) with the stratex cost "
                       "model and prints predicted against measured iteration time, the throughput error, "
                       "predicted peak memory, and the mean absolute error of the fit and hold-out runs."));
    parser.option(QStringLiteral("runs"), QStringLiteral("DIR"),
        QStringLiteral("Directory of run records (default: the bundled reference runs)."));
    parser.flag(QStringLiteral("fit"),
        QStringLiteral("Fit the GPU presets' efficiencies on the \"fit\" runs only (one fit per GPU family, from "
                       "the datasheet guesses) and print them with the fit and hold-out error before and after: "
                       "how the defaults of the cost model are made."));
    parser.option(QStringLiteral("fit-parameters"), QStringLiteral("NAMES"),
        QStringLiteral("With --fit or --cross-validate: the candidate efficiencies, comma-separated (default: "
                       "those the presets were fitted with; \"compute\" scales GEMM and attention efficiency "
                       "together). Each family fits only the candidates its runs identify and keeps its prior "
                       "(datasheet, or its parent family's fit) for the rest (docs/calibration.md)."));
    parser.flag(QStringLiteral("cross-validate"),
        QStringLiteral("Leave one source (publication) out at a time, fit the presets as --fit does on the fit runs "
                       "of the others, predict the left-out source's runs (hold-out records included, never fitted "
                       "on), and print the mean absolute throughput error per source, GPU family and regime."));
    parser.flag(QStringLiteral("search-claims"),
        QStringLiteral("Search each measured run on at least --min-gpus GPUs (its model, cluster, global batch and "
                       "its team's stated precision, framework, attention kernel, compile and TP overlap) and print "
                       "the pick and how much faster than the measured run it claims to be, beside the run's own "
                       "layout's error (issue 22: a pick over expert-tuned runs should claim at most +15 %)."));
    parser.option(QStringLiteral("min-gpus"), QStringLiteral("N"),
        QStringLiteral("With --search-claims: the runs searched have at least N GPUs (default 512)."));
    parser.flag(QStringLiteral("rankings"),
        QStringLiteral("Group the measured runs by setting (source and release, framework, model shape, GPU, GPU count, global "
                       "batch in tokens) and print, per setting with two or more runs, the runs in measured and "
                       "predicted order and whether the measured best is predicted first or within 1 % of the "
                       "predicted best (issue 22; docs/evidence.md, \"Ranking of measured layouts\")."));
    parser.flag(QStringLiteral("same-precision"),
        QStringLiteral("With --rankings: precision is part of the setting (default: bf16 or fp8 is a choice ranked "
                       "like the layout)."));
    parser.flag(QStringLiteral("rankings-search"),
        QStringLiteral("With --rankings: also search each setting of its measured best (as --search-claims does) "
                       "and print the pick against the measured best."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print JSON instead of text."));
    parser.workBudgetOption(); // --fit and --cross-validate (core/runs/calibration_work.h)
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    const QString dir = parser.isSet(QStringLiteral("runs")) ? parser.value(QStringLiteral("runs")) : defaultRunsDir();

    const std::vector<runs::ReferenceRun> runs = runs::readReferenceRuns(dir.toStdString());
    if (runs.empty()) // "0 runs, error 0.0 %" said nothing was wrong (issue 26)
        throw InputError(dir.toStdString(), "", "a folder of run records (*.json)", "no *.json file");
    if (parser.isSet(QStringLiteral("cross-validate")))
        return printCrossValidation(runs, presetFitOptions(parser), parser.isSet(QStringLiteral("json")));
    if (parser.isSet(QStringLiteral("search-claims"))) {
        runs::SearchClaimOptions options;
        options.min_gpus = parser.intValue(QStringLiteral("min-gpus"), options.min_gpus);
        return printSearchClaims(runs, options, parser.isSet(QStringLiteral("json")));
    }
    if (parser.isSet(QStringLiteral("rankings"))) {
        runs::RankingOptions options;
        options.precision_is_setting = parser.isSet(QStringLiteral("same-precision"));
        options.search = parser.isSet(QStringLiteral("rankings-search"));
        return printMeasuredRankings(runs, options, parser.isSet(QStringLiteral("json")));
    }
    if (parser.isSet(QStringLiteral("fit")))
        return printPresetFit(runs, presetFitOptions(parser), parser.isSet(QStringLiteral("json")));
    std::vector<runs::ReferenceComparison> comparisons;
    for (const runs::ReferenceRun& run : runs)
        comparisons.push_back(runs::compareWithRun(run, hardware::efficiencyFor(run.cluster)));
    const Summary fit = summarise(comparisons, true);
    const Summary holdout = summarise(comparisons, false);
    std::vector<runs::MemoryOutcomeRow> outcomes;
    for (const runs::ReferenceComparison& c : comparisons) {
        if (c.estimate.problems.empty())
            outcomes.push_back(runs::memoryOutcomeRow(c));
    }

    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::ordered_json out;
        out["runs"] = nlohmann::ordered_json::array();
        for (const auto& c : comparisons) {
            const runs::ReferenceRun& run = *c.run;
            nlohmann::ordered_json row = { { "id", run.id }, { "use", run.fit ? "fit" : "holdout" },
                { "verified", run.verified }, { "gpus", run.cluster.worldSize() }, { "gpu", run.cluster.gpu.name },
                { "strategy", run.strategy.notation() }, { "measured_time", run.measured_time } };
            if (run.measured_time)
                row["measured_iteration_s"] = run.measured_iteration_s;
            row["measured_from"] = run.measured_from;
            if (!c.estimate.problems.empty()) {
                row["problems"] = c.estimate.problems;
            } else {
                row["predicted_iteration_s"] = c.predicted_iteration_s;
                if (run.measured_time)
                    row["throughput_error"] = c.throughput_error;
                row["predicted_peak_memory_gb"] = c.estimate.peak_memory_mb / 1e3;
                row["predicted_oom"] = c.predicted_oom;
                row["predicted_mfu"] = c.estimate.mfu;
            }
            if (run.peak_memory_gib)
                row["measured_peak_memory_gib"] = *run.peak_memory_gib;
            addMemoryColumns(row, c);
            row["trained"] = run.trained;
            row["assumptions"] = run.assumptions;
            out["runs"].push_back(row);
        }
        out["fit"] = summaryJson(fit);
        out["holdout"] = summaryJson(holdout);
        const std::vector<runs::MemoryError> memory = runs::memoryErrors(comparisons);
        out["memory_by_framework"] = memorySummariesJson(runs::memoryErrorsByFramework(memory));
        out["memory_by_framework_and_kind"] = memorySummariesJson(runs::memoryErrorsByFrameworkAndKind(memory));
        out["memory_outcomes"] = memoryOutcomesJson(runs::memoryOutcomes(outcomes));
        printOut(jsonText(out, 2, "the JSON report") + "\n");
        return kExitOk;
    }
    std::string text;
    for (const auto& c : comparisons) {
        const runs::ReferenceRun& run = *c.run;
        text += run.id + " [" + (run.fit ? "fit" : "holdout") + "] " + std::to_string(run.cluster.worldSize()) + " x "
            + run.cluster.gpu.name + ", " + run.strategy.notation() + "\n";
        if (!c.estimate.problems.empty()) {
            text += "  cannot be costed: " + c.estimate.problems.front() + "\n";
            continue;
        }
        text += (run.measured_time ? "  measured " + fixed(run.measured_iteration_s, 3) + " s/iter (" + run.measured_from
                                         + "), predicted " + fixed(c.predicted_iteration_s, 3)
                                         + " s/iter, throughput error " + signedPercent(c.throughput_error)
                : !run.trained ? "  no time (went out of memory), predicted " + fixed(c.predicted_iteration_s, 3) + " s/iter"
                               : "  no time published (memory-only record), predicted "
                                         + fixed(c.predicted_iteration_s, 3) + " s/iter")
            + ", peak memory " + fixed(c.estimate.peak_memory_mb / 1e3, 1) + " GB of "
            + fixed(c.estimate.memory_limit_mb / 1e3, 1) + (c.predicted_oom ? " (predicted OOM)" : "") + "\n";
        text += memoryLine(c);
        if (const std::string outcome = runs::memoryOutcomeLine(runs::memoryOutcomeRow(c)); !outcome.empty())
            text += "  " + outcome + "\n";
    }
    text += "fit: " + std::to_string(fit.runs) + " runs, mean absolute throughput error " + fixed(fit.mae * 100, 1)
        + " %, " + std::to_string(fit.trainedButOom) + " trained runs predicted OOM\n";
    text += "holdout: " + std::to_string(holdout.runs) + " runs, mean absolute throughput error "
        + fixed(holdout.mae * 100, 1) + " %, " + std::to_string(holdout.trainedButOom)
        + " trained runs predicted OOM\n";
    text += kMemoryHeading;
    const std::vector<runs::MemoryError> memory = runs::memoryErrors(comparisons);
    text += memorySummaryText(runs::memoryErrorsByFramework(memory), runs::memoryErrorsByFrameworkAndKind(memory));
    text += runs::memoryOutcomesText(runs::memoryOutcomes(outcomes));
    printOut(text);
    return kExitOk;
}

const RegisterCommand registerReference({ QStringLiteral("reference"),
    QStringLiteral("Predicted vs measured for published training runs (stratex cost model)."), 75, runReference });

} // namespace

} // namespace stratex::cli
