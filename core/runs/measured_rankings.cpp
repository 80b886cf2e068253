// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/measured_rankings.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/hardware/hardware_model.h"
#include "core/runs/search_claims.h"

namespace stratex::runs {

SettingKey settingKey(const ReferenceRun& run, const RankingOptions& options)
{
    SettingKey key;
    key.release = run.release;
    key.framework = run.strategy.framework;
    key.te_version = run.strategy.te_version;
    key.model = run.model;
    key.model.name.clear(); // a label: "llama3.1-8b" and "llama-3.1-8b" of one shape are one model
    key.gpu = run.cluster.gpu.name;
    key.gpus = run.cluster.worldSize();
    key.global_batch_tokens = static_cast<long long>(run.strategy.global_batch_size) * run.model.seq_length;
    if (options.precision_is_setting)
        key.precision = run.strategy.precision;
    return key;
}

namespace {

bool timed(const ReferenceRun& run) { return run.measured_time && run.measured_iteration_s > 0; }

// -1, 0 or 1 as a < b, within a relative 1e-9 (two predictions of equal plans are ties, not an order).
int order(double a, double b)
{
    const double scale = std::max(std::abs(a), std::abs(b));
    if (std::abs(a - b) <= 1e-9 * scale)
        return 0;
    return a < b ? -1 : 1;
}

} // namespace

void rankRuns(MeasuredRanking& ranking, const RankingOptions& options)
{
    std::vector<RankedRun>& runs = ranking.runs;
    ranking.pairs = ranking.concordant = ranking.discordant = 0;
    std::stable_sort(runs.begin(), runs.end(),
        [](const RankedRun& a, const RankedRun& b) { return a.measured_s < b.measured_s; });
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const bool tied = i > 0 && order(runs[i].measured_s, runs[i - 1].measured_s) == 0;
        runs[i].measured_rank = tied ? runs[i - 1].measured_rank : int(i) + 1;
    }
    ranking.predicted_order.resize(runs.size());
    std::iota(ranking.predicted_order.begin(), ranking.predicted_order.end(), 0);
    std::stable_sort(ranking.predicted_order.begin(), ranking.predicted_order.end(),
        [&runs](int a, int b) { return runs[a].predicted_s < runs[b].predicted_s; });
    for (std::size_t i = 0; i < runs.size(); ++i) {
        RankedRun& run = runs[std::size_t(ranking.predicted_order[i])];
        const RankedRun* before = i > 0 ? &runs[std::size_t(ranking.predicted_order[i - 1])] : nullptr;
        run.predicted_rank
            = before && order(run.predicted_s, before->predicted_s) == 0 ? before->predicted_rank : int(i) + 1;
    }
    if (!ranking.ranked())
        return;
    ranking.measured_best = 0;
    ranking.measured_best_ties = 1;
    for (std::size_t i = 1; i < runs.size() && runs[i].measured_rank == 1; ++i) {
        ++ranking.measured_best_ties;
        if (runs[i].predicted_s < runs[std::size_t(ranking.measured_best)].predicted_s)
            ranking.measured_best = int(i);
    }
    const RankedRun& measuredBest = runs[std::size_t(ranking.measured_best)];
    const RankedRun& predictedBest = runs[std::size_t(ranking.predicted_order.front())];
    ranking.best_predicted_first = order(measuredBest.predicted_s, predictedBest.predicted_s) == 0;
    ranking.predicted_gap = measuredBest.predicted_s / predictedBest.predicted_s - 1;
    ranking.best_within_tolerance
        = ranking.best_predicted_first || ranking.predicted_gap <= options.tolerance * (1 + 1e-12);
    ranking.best_predicted_oom = measuredBest.predicted_oom;
    ranking.measured_loss = predictedBest.measured_s / measuredBest.measured_s - 1;
    // Kendall's tau-a over the pairs (Kendall 1938): a pair is concordant when the model orders
    // it as measured, discordant when the other way; a tie in either counts in neither.
    for (std::size_t i = 0; i < runs.size(); ++i) {
        for (std::size_t j = i + 1; j < runs.size(); ++j) {
            const int measured = order(runs[i].measured_s, runs[j].measured_s);
            const int predicted = order(runs[i].predicted_s, runs[j].predicted_s);
            ++ranking.pairs;
            if (measured != 0 && predicted != 0)
                (measured == predicted ? ranking.concordant : ranking.discordant) += 1;
        }
    }
    ranking.kendall_tau = double(ranking.concordant - ranking.discordant) / ranking.pairs;
    ranking.pairwise_agreement = double(ranking.concordant) / ranking.pairs;
}

namespace {

// search_claims' search on the measured best's setting: its model, cluster, global batch and the
// stated choices claimSpace holds (docs/evidence.md §5).
RankingSearch searchMeasuredBest(const RankedRun& best, const RankingOptions& options, ProgressSink& progress)
{
    const std::vector<ReferenceRun> one { *best.run };
    SearchClaimOptions claimOptions;
    claimOptions.min_gpus = 1;
    claimOptions.threads = options.threads;
    const std::vector<SearchClaim> claims = searchClaims(one, claimOptions, progress);
    RankingSearch search;
    if (!claims.empty() && claims.front().pick) {
        search.pick = claims.front().pick;
        search.evidence = claims.front().pick_evidence;
        search.claim = claims.front().claim;
    }
    return search;
}

} // namespace

std::vector<MeasuredRanking> measuredRankings(
    const std::vector<ReferenceRun>& runs, const RankingOptions& options, ProgressSink& progress)
{
    // Group the timed runs by setting, in the order of each setting's first run.
    std::vector<SettingKey> keys;
    std::vector<std::vector<const ReferenceRun*>> members;
    for (const ReferenceRun& run : runs) {
        if (!timed(run))
            continue;
        const SettingKey key = settingKey(run, options);
        const auto found = std::find(keys.begin(), keys.end(), key);
        if (found == keys.end()) {
            keys.push_back(key);
            members.push_back({ &run });
        } else {
            members[std::size_t(found - keys.begin())].push_back(&run);
        }
    }
    std::vector<MeasuredRanking> rankings;
    for (std::size_t g = 0; g < keys.size(); ++g) {
        if (members[g].size() < 2)
            continue;
        progress.throwIfCancelled();
        MeasuredRanking ranking;
        ranking.setting = keys[g];
        ranking.model_name = members[g].front()->model.name;
        ranking.seq_length = members[g].front()->model.seq_length;
        for (const ReferenceRun* run : members[g]) {
            // The prediction `reference` prints for the run (its GPU's presets, its attention kernel).
            const ReferenceComparison c = compareWithRun(*run, hardware::efficiencyFor(run->cluster));
            if (!c.estimate.problems.empty()) {
                ranking.uncosted.push_back(run->id + ": " + c.estimate.problems.front());
                continue;
            }
            RankedRun ranked;
            ranked.run = run;
            ranked.measured_s = run->measured_iteration_s;
            ranked.predicted_s = c.predicted_iteration_s;
            ranked.predicted_oom = c.predicted_oom;
            ranking.runs.push_back(ranked);
        }
        rankRuns(ranking, options);
        rankings.push_back(std::move(ranking));
    }
    if (options.search) {
        for (std::size_t i = 0; i < rankings.size(); ++i) {
            if (rankings[i].runs.empty())
                continue;
            SubProgress searching(progress, double(i) / double(rankings.size()), double(i + 1) / double(rankings.size()));
            rankings[i].search
                = searchMeasuredBest(rankings[i].runs[std::size_t(rankings[i].measured_best)], options, searching);
        }
    }
    progress.report(1.0, "done");
    return rankings;
}

RankingTotals rankingTotals(const std::vector<MeasuredRanking>& rankings)
{
    RankingTotals totals;
    for (const MeasuredRanking& r : rankings) {
        if (!r.ranked())
            continue;
        ++totals.groups;
        totals.best_first += r.best_predicted_first ? 1 : 0;
        totals.best_within_tolerance += r.best_within_tolerance ? 1 : 0;
        totals.pairs += r.pairs;
        totals.concordant += r.concordant;
        totals.discordant += r.discordant;
    }
    totals.pairwise_agreement = totals.pairs > 0 ? double(totals.concordant) / totals.pairs : 0;
    return totals;
}

} // namespace stratex::runs
