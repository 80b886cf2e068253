// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/stratex_search.h"

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "app/cli/stratex_report.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"
#include "core/megatron/memory_margin.h"
#include "core/megatron/search_stats_text.h"
#include "core/model/model_json.h"
#include "core/megatron/estimate_json.h"
#include "core/megatron/framework_support.h"
#include "core/megatron/plan_file.h"
#include "core/megatron/stratex_request.h"
#include "core/hardware/cluster_json.h"

namespace stratex::cli {

namespace {

nlohmann::ordered_json statsJson(const megatron::StrategySearchStats& stats, double seconds, int threads)
{
    return { { "enumerated", stats.enumerated }, { "refused", stats.refused }, { "pruned", stats.pruned },
        { "over_memory", stats.over_memory },
        { "bounded", stats.bounded }, { "simulated", stats.simulated }, { "search_time_s", seconds },
        { "threads", threads } };
}

} // namespace

int runStratexSearch(const CliParser& parser, const megatron::StrategySearchRequest& request)
{
    megatron::StratexSearchRun run;
    {
        InterruptProgress progress;
        run = megatron::runStratexSearch(request, progress, parser.liftsWorkBudget());
        progress.finish();
    }
    const megatron::StrategySearchResult& result = run.result;
    const std::vector<megatron::PlanRobustness>& robustness = run.robustness;
    const double seconds = run.search_time_s;
    const int threads = run.threads;
    const int globalBatchSize = request.global_batch_size;
    const megatron::StrategySearchRequest& target = request;

    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::ordered_json out;
        out["cost_model"] = "stratex";
        out["model"] = model::toJson(target.model);
        out["cluster"] = hardware::toJson(target.cluster);
        out["efficiency"] = hardware::toJson(request.efficiency); // the cluster's calibrated ones, or the preset's
        out["global_batch_size"] = globalBatchSize;
        out["memory_limit_mb"] = target.memory_limit_mb;
        out["stats"] = statsJson(result.stats, seconds, threads);
        out["model_time_evidence"] = modelTimeJson(target.model); // the same for every plan of the search
        nlohmann::ordered_json best = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < result.best.size(); ++i) {
            nlohmann::ordered_json plan = megatron::toJson(result.best[i]);
            const megatron::PlanRobustness& r = robustness[i];
            plan["robustness"] = { { "rank_range_5_percent", { r.band_5.best, r.band_5.worst } },
                { "rank_range_10_percent", { r.band_10.best, r.band_10.worst } }, { "robust_5_percent", r.robust_5 },
                { "robust_10_percent", r.robust_10 } };
            plan["evidence"] = evidenceJson(result.evidence[i]);
            plan["memory_margin"] = memoryMarginJson(result.best[i]);
            nlohmann::ordered_json also = nlohmann::ordered_json::array();
            for (const megatron::ParallelStrategy& twin : result.twins[i])
                also.push_back({ { "strategy", twin.notation() },
                    { "difference", megatron::twinDifference(result.best[i].strategy, twin) } });
            plan["also"] = std::move(also);
            best.push_back(std::move(plan));
        }
        out["top"] = std::move(best);
        if (result.least_memory)
            out["least_memory"] = megatron::toJson(*result.least_memory);
        printJson(out);
    } else {
        std::string text = "Stratex cost model: " + target.model.name + " on " + std::to_string(target.cluster.num_nodes)
            + " x " + std::to_string(target.cluster.gpus_per_node) + " " + target.cluster.gpu.name + ", global batch "
            + std::to_string(globalBatchSize) + " x " + std::to_string(target.model.seq_length) + " tokens, "
            + fixed(target.memory_limit_mb, 0) + " MB per GPU\n";
        text += megatron::searchStatsText(result.stats, request.space.framework, seconds, threads) + "\n";
        if (!result.best.empty()) {
            text += "Best:\n" + estimateText(result.best.front()) + evidenceLine(result.evidence.front()) + "\n"
                + modelTimeLine(target.model) + "\n" + memoryMarginLine(result.best.front()) + "\n";
            text += "Top plans (rank range when compute or one dimension's communication is off by 10 %; an "
                    "extrapolated plan is ranked as if " + fixed(megatron::kExtrapolationUncertainty * 100, 0)
                + " % slower):\n";
            for (std::size_t i = 0; i < result.best.size(); ++i) {
                const megatron::RankRange& range = robustness[i].band_10;
                const std::string ranks = robustness[i].robust_10 ? "robust"
                    : range.best == range.worst
                    ? "rank " + std::to_string(range.best)
                    : "ranks " + std::to_string(range.best) + "-" + std::to_string(range.worst);
                const megatron::MemoryMargin margin = megatron::memoryMargin(result.best[i]);
                text += "  " + std::to_string(i + 1) + ". " + estimateLine(result.best[i]) + " [" + ranks + "]"
                    + (result.evidence[i].extrapolated ? " [extrapolated]" : "")
                    + (margin.tight ? " [memory tight]" : "") + "\n";
                if (const std::string also = megatron::twinsLine(result.best[i].strategy, result.twins[i]);
                    !also.empty())
                    text += "     " + also + "\n";
                if (result.evidence[i].extrapolated)
                    text += "     " + evidenceLine(result.evidence[i]) + "\n";
                if (margin.tight)
                    text += "     " + margin.note + "\n";
            }
        }
        printOut(text);
    }
    if (result.best.empty()) {
        std::string message = "no strategy fits in " + fixed(target.memory_limit_mb, 0) + " MB per GPU";
        if (result.least_memory)
            message += "; the least memory is " + fixed(result.least_memory->peak_memory_mb, 0) + " MB ("
                + result.least_memory->strategy.notation() + ")";
        throw Error(message);
    }
    if (parser.isSet(QStringLiteral("out"))) {
        const nlohmann::ordered_json plan = megatron::planFileJson(target.model, target.cluster, result.best.front());
        const std::string out = parser.value(QStringLiteral("out")).toStdString();
        writeFileAtomically(out, jsonText(plan, 2, out) + "\n");
    }
    return kExitOk;
}

} // namespace stratex::cli
