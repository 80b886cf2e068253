// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/reference_rankings.h"

#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"

namespace stratex::cli {

namespace {

std::string seconds(double value) { return fixed(value, 3) + " s"; }

// The choices beside the layout that vary inside a setting (measured_rankings.h, SettingKey):
// precision always, torch.compile, the attention kernel and unfused attention where a record states them.
std::string choices(const runs::ReferenceRun& run)
{
    const megatron::ParallelStrategy& s = run.strategy;
    std::string text = std::string(megatron::precisionName(s.precision));
    if (s.compile != megatron::Compile::Default)
        text += " compile-" + std::string(megatron::compileName(s.compile));
    if (!s.flash_attention)
        text += " unfused-attention";
    else if (run.attention_kernel != hardware::AttentionKernel::Default)
        text += " " + std::string(hardware::attentionKernelName(run.attention_kernel));
    return text;
}

std::string settingTitle(const runs::MeasuredRanking& r)
{
    const runs::SettingKey& k = r.setting;
    return r.model_name + ", " + std::to_string(k.gpus) + " x " + k.gpu + ", seq " + std::to_string(r.seq_length) + ", "
        + std::to_string(k.global_batch_tokens) + " tokens per batch, "
        + std::string(megatron::frameworkName(k.framework))
        + (k.precision ? ", " + std::string(megatron::precisionName(*k.precision)) : "") + " (" + k.release + ")";
}

std::string verdict(const runs::MeasuredRanking& r, double tolerance)
{
    if (!r.ranked())
        return "fewer than two runs can be costed: no ranking";
    const std::string bar = fixed(tolerance * 100, 0) + " %";
    std::string text = r.best_predicted_first ? "measured best predicted first"
        : "measured best predicted " + signedPercent(r.predicted_gap) + " behind the predicted best ("
            + (r.best_within_tolerance ? "within " : "over ") + bar + "); the predicted best measured "
            + signedPercent(r.measured_loss) + " slower";
    if (r.measured_best_ties > 1)
        text += "; " + std::to_string(r.measured_best_ties) + " runs tie at the fastest measured time, the verdict takes "
            + r.runs[std::size_t(r.measured_best)].run->id + ", the one predicted fastest";
    if (r.best_predicted_oom)
        text += "; the measured best is predicted not to fit";
    return text + "; Kendall tau " + fixed(r.kendall_tau, 2) + " (" + std::to_string(r.concordant) + " of "
        + std::to_string(r.pairs) + " pairs ordered as measured)";
}

nlohmann::ordered_json rankingJson(const runs::MeasuredRanking& r)
{
    const runs::SettingKey& k = r.setting;
    nlohmann::ordered_json out = { { "model", r.model_name }, { "gpu", k.gpu }, { "gpus", k.gpus },
        { "seq_length", r.seq_length }, { "global_batch_tokens", k.global_batch_tokens },
        { "framework", megatron::frameworkName(k.framework) }, { "release", k.release } };
    if (k.precision)
        out["precision"] = megatron::precisionName(*k.precision);
    out["runs"] = nlohmann::ordered_json::array();
    for (const runs::RankedRun& run : r.runs)
        out["runs"].push_back({ { "id", run.run->id }, { "layout", run.run->strategy.notation() },
            { "choices", choices(*run.run) }, { "measured_iteration_s", run.measured_s },
            { "predicted_iteration_s", run.predicted_s }, { "predicted_oom", run.predicted_oom },
            { "measured_rank", run.measured_rank }, { "predicted_rank", run.predicted_rank } });
    out["predicted_order"] = nlohmann::ordered_json::array();
    for (int i : r.predicted_order)
        out["predicted_order"].push_back(r.runs[std::size_t(i)].run->id);
    out["uncosted"] = r.uncosted;
    out["ranked"] = r.ranked();
    if (r.ranked()) {
        out["measured_best"] = r.runs[std::size_t(r.measured_best)].run->id;
        out["measured_best_ties"] = r.measured_best_ties;
        out["best_predicted_first"] = r.best_predicted_first;
        out["best_within_tolerance"] = r.best_within_tolerance;
        out["best_predicted_oom"] = r.best_predicted_oom;
        out["predicted_gap"] = r.predicted_gap;
        out["measured_loss"] = r.measured_loss;
        out["pairs"] = r.pairs;
        out["concordant_pairs"] = r.concordant;
        out["discordant_pairs"] = r.discordant;
        out["kendall_tau"] = r.kendall_tau;
        out["pairwise_agreement"] = r.pairwise_agreement;
    }
    if (r.search && r.search->pick) {
        out["search_pick"] = r.search->pick->strategy.notation();
        out["search_pick_iteration_s"] = r.search->pick->iteration_ms / 1e3;
        out["search_claim_over_measured_best"] = r.search->claim;
        out["search_pick_extrapolated"] = r.search->evidence.extrapolated;
    }
    return out;
}

} // namespace

int printMeasuredRankings(const std::vector<runs::ReferenceRun>& runs, const runs::RankingOptions& options, bool json)
{
    std::vector<runs::MeasuredRanking> rankings;
    {
        InterruptProgress progress;
        rankings = runs::measuredRankings(runs, options, progress);
        progress.finish();
    }
    const runs::RankingTotals totals = runs::rankingTotals(rankings);
    if (json) {
        nlohmann::ordered_json out;
        out["tolerance"] = options.tolerance;
        out["precision_is_setting"] = options.precision_is_setting;
        out["groups"] = nlohmann::ordered_json::array();
        for (const runs::MeasuredRanking& r : rankings)
            out["groups"].push_back(rankingJson(r));
        out["ranked_groups"] = totals.groups;
        out["best_predicted_first"] = totals.best_first;
        out["best_within_tolerance"] = totals.best_within_tolerance;
        out["pairs"] = totals.pairs;
        out["concordant_pairs"] = totals.concordant;
        out["discordant_pairs"] = totals.discordant;
        out["pairwise_agreement"] = totals.pairwise_agreement;
        printOut(jsonText(out, 2, "the JSON report") + "\n");
        return kExitOk;
    }
    std::string text = "Ranking of measured layouts: the measured runs of one setting (source and release, framework, model shape, "
                       "GPU, GPU count, global batch in tokens"
        + std::string(options.precision_is_setting ? ", precision" : "")
        + "), each predicted as `reference` predicts it; rank measured / predicted:\n";
    for (const runs::MeasuredRanking& r : rankings) {
        text += settingTitle(r) + ":\n";
        for (const runs::RankedRun& run : r.runs)
            text += "  " + std::to_string(run.measured_rank) + " / " + std::to_string(run.predicted_rank) + "  "
                + run.run->id + ": measured " + seconds(run.measured_s) + ", predicted " + seconds(run.predicted_s)
                + (run.predicted_oom ? " (predicted OOM)" : "") + "; " + run.run->strategy.notation() + ", "
                + choices(*run.run) + "\n";
        for (const std::string& uncosted : r.uncosted)
            text += "  not costed: " + uncosted + "\n";
        text += "  " + verdict(r, options.tolerance) + "\n";
        if (r.search)
            text += r.search->pick ? "  search on the measured best's setting picks " + r.search->pick->strategy.notation()
                    + ": " + seconds(r.search->pick->iteration_ms / 1e3) + ", claims " + signedPercent(r.search->claim)
                    + " over the measured best" + (r.search->evidence.extrapolated ? " (extrapolated)" : "") + "\n"
                                   : "  search on the measured best's setting: no plan fits\n";
    }
    text += std::to_string(totals.groups) + (totals.groups == 1 ? " setting" : " settings") + " ranked: the measured best predicted first in "
        + std::to_string(totals.best_first) + ", within " + fixed(options.tolerance * 100, 0) + " % of the predicted best in "
        + std::to_string(totals.best_within_tolerance) + "; " + std::to_string(totals.concordant) + " of "
        + std::to_string(totals.pairs) + " pairs ordered as measured (" + fixed(totals.pairwise_agreement * 100, 0)
        + " %), " + std::to_string(totals.discordant) + " the other way\n";
    printOut(text);
    return kExitOk;
}

} // namespace stratex::cli
