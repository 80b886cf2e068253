// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/search_claims.h"

#include <cmath>
#include <string>

#include "core/hardware/hardware_model.h"
#include "core/megatron/megatron_releases.h"
#include "core/megatron/memory_margin.h"

namespace stratex::runs {

megatron::StrategySpace claimSpace(const ReferenceRun& run)
{
    const megatron::ParallelStrategy& s = run.strategy;
    megatron::StrategySpace space; // the search's defaults: every degree, schedule, ZeRO stage, recompute
    space.precision = s.precision;
    space.framework = s.framework;
    space.main_grads_dtype = s.main_grads_dtype;
    space.optimizer_state_dtype = s.optimizer_state_dtype;
    space.attention_kernel = s.attention_kernel;
    space.flash_attention = s.flash_attention;
    space.compile = s.compile;
    space.cuda_graphs = s.cuda_graphs; // docs/kernels.md §7
    space.fp8_recipe = s.fp8_recipe; // docs/kernels.md §8
    space.tp_comm_overlap = s.tp_comm_overlap;
    // What Megatron-LM had when the run was published (megatron_releases.h): the claim is over
    // what the team could have run then, not over features that came later.
    space.features_year = run.year;
    return space;
}

std::vector<SearchClaim> searchClaims(
    const std::vector<ReferenceRun>& runs, const SearchClaimOptions& options, ProgressSink& progress)
{
    std::vector<const ReferenceRun*> chosen;
    for (const ReferenceRun& run : runs) {
        if (run.measured_time && run.measured_iteration_s > 0 && run.cluster.worldSize() >= options.min_gpus)
            chosen.push_back(&run);
    }
    std::vector<SearchClaim> claims;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        const ReferenceRun& run = *chosen[i];
        progress.report(double(i) / double(chosen.size()), "searching for " + run.id);
        const hardware::Efficiency efficiency = hardware::efficiencyFor(run.cluster);
        const ReferenceComparison expert = compareWithRun(run, efficiency);
        if (!expert.estimate.problems.empty())
            continue; // the model cannot cost the experts' own layout: nothing to compare with
        megatron::StrategySearchRequest request;
        request.model = run.model;
        request.cluster = run.cluster;
        request.efficiency = efficiency;
        request.global_batch_size = run.strategy.global_batch_size;
        request.space = claimSpace(run);
        request.top = 1;
        request.threads = options.threads;
        request.coverage = megatron::bundledCoverage();
        SubProgress searching(progress, double(i) / double(chosen.size()), double(i + 1) / double(chosen.size()));
        const megatron::StrategySearchResult result = megatron::searchStrategies(request, searching);
        SearchClaim claim;
        claim.run = &run;
        claim.measured_s = run.measured_iteration_s;
        claim.expert_predicted_s = expert.predicted_iteration_s;
        claim.expert_error = expert.throughput_error;
        claim.features_year = megatron::followsMegatronReleases(request.space.framework) ? request.space.features_year : 0;
        if (!result.best.empty()) {
            claim.pick = result.best.front();
            claim.pick_memory_tight = megatron::memoryMargin(*claim.pick).tight;
            claim.pick_evidence = result.evidence.empty() ? megatron::PlanEvidence {} : result.evidence.front();
            claim.claim = run.measured_iteration_s / (claim.pick->iteration_ms / 1e3) - 1;
        }
        claims.push_back(std::move(claim));
    }
    progress.report(1.0, "done");
    return claims;
}

namespace {

void count(ClaimTally& tally, const SearchClaim& c)
{
    ++tally.runs;
    tally.over_claim_bar += c.claim > kClaimBar ? 1 : 0;
    tally.layouts_within_bar += std::abs(c.expert_error) <= kExpertLayoutBar ? 1 : 0;
    if (c.pick && (!tally.largest || c.claim > tally.largest->claim))
        tally.largest = &c;
}

} // namespace

ClaimSummary summarizeClaims(const std::vector<SearchClaim>& claims)
{
    ClaimSummary summary;
    for (const SearchClaim& c : claims) {
        count(summary.all, c);
        count(c.run->layout_purpose == LayoutPurpose::Throughput ? summary.tuned : summary.fixed_layouts, c);
    }
    return summary;
}

} // namespace stratex::runs
