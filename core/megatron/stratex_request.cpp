// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/stratex_request.h"

#include "core/megatron/search_work_estimate.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "core/common/error.h"
#include "core/model/model_presets.h"
#include "core/hardware/hardware_model.h"
#include "core/common/parallel_for.h"
#include "core/sim/simulator.h"

namespace stratex::megatron {

namespace {

constexpr SharedSearchFlag kSharedFlags[] = {
    { "num-nodes", true },
    { "num-gpus-per-node", true },
    { "memory-constraint", true },
    { "seq-length", true },
    { "model-name", true },
    { "settle-bsz", false },
    { "hidden-size", false },
    { "num-layers", false },
    { "num-heads", false },
    { "vocab-size", false },
};

const SharedSearchFlag* sharedFlag(std::string_view flag)
{
    const auto* found = std::ranges::find(kSharedFlags, flag, &SharedSearchFlag::flag);
    return found == std::end(kSharedFlags) ? nullptr : found;
}

} // namespace

std::span<const SharedSearchFlag> stratexSharedFlags()
{
    return kSharedFlags;
}

bool stratexReads(std::string_view searchFlag)
{
    return sharedFlag(searchFlag) != nullptr;
}

bool stratexFormShows(std::string_view searchFlag)
{
    const SharedSearchFlag* flag = sharedFlag(searchFlag);
    return flag && flag->form_shows;
}

std::vector<std::string> galvatronOnlyFlags(const settings::SettingNames& given)
{
    std::vector<std::string> flags;
    for (const std::string& flag : given) {
        if (!stratexReads(flag))
            flags.push_back("--" + flag);
    }
    return flags;
}

void adoptSynthesizedSet(StratexInputs& inputs, const profile::synth::SynthesisRecord& record)
{
    inputs.base_model = record.model;
    inputs.base_cluster = record.cluster;
    inputs.base_label = "the synthesized profiles";
}

StratexTarget resolveStratexTarget(const StratexInputs& inputs)
{
    StratexTarget target;
    if (!inputs.measured_profiles.empty())
        target.warnings.push_back(inputs.measured_profiles
            + ": measured profiles, which the stratex cost model does not read; it costs the model and GPU given "
              "instead (the galvatron cost model reads them)");

    // A model name that names a preset stands for the preset when nothing else describes the model.
    galvatron::ModelSettings modelFlags = inputs.model_flags;
    settings::SettingNames givenModel = inputs.given_model;
    if (!inputs.base_model && !givenModel.contains("model") && inputs.given.contains("model-name")
        && model::isModelPreset(inputs.settings.model.name)) {
        modelFlags.preset = inputs.settings.model.name;
        givenModel.insert("model");
    }
    const galvatron::ResolvedModel resolved = galvatron::resolveModel(inputs.base_model,
        inputs.base_label + "'s model", inputs.settings, inputs.given, modelFlags, givenModel);
    target.warnings.insert(target.warnings.end(), resolved.warnings.begin(), resolved.warnings.end());
    if (!resolved.model)
        throw Error((inputs.measured_profiles.empty()
                            ? std::string()
                            : inputs.measured_profiles + ": measured profiles, which the stratex cost model does not read; ")
            + galvatron::missingModelMessage("the stratex cost model",
                        inputs.base_model ? inputs.base_label : std::string("the inputs"), resolved.missing)
            + ", or name a model preset as the model name, or choose a profile set made by 'profile synth' "
              "(Synthesize…)");
    target.model = *resolved.model;

    std::optional<hardware::ClusterDescription> cluster = inputs.cluster_file;
    if (!cluster)
        cluster = inputs.base_cluster;
    const galvatron::SearchSettings& s = inputs.settings;
    if (!inputs.stratex.gpu.empty()) {
        hardware::GpuDescription gpu = hardware::gpuPreset(inputs.stratex.gpu);
        if (!cluster) {
            cluster.emplace();
            cluster->num_nodes = s.num_nodes;
            cluster->gpus_per_node = s.num_gpus_per_node;
        } else if (cluster->gpu.name != gpu.name) {
            target.warnings.push_back("the GPU " + gpu.name + " replaces the GPU " + cluster->gpu.name);
            if (cluster->efficiency) {
                target.warnings.push_back("the efficiencies calibrated on " + cluster->gpu.name + " are dropped; "
                    + gpu.name + " uses its preset's");
                cluster->efficiency.reset(); // a calibration holds for the GPU it was measured on
            }
        }
        cluster->gpu = std::move(gpu);
    }
    if (!cluster)
        throw Error("the stratex cost model needs the GPU: name a GPU preset (--gpu, the GPU field; profile synth's "
                    "names), a cluster file (--cluster) or a profile set made by 'profile synth' (Synthesize…)");
    if (inputs.given.contains("num-nodes"))
        cluster->num_nodes = s.num_nodes;
    if (inputs.given.contains("num-gpus-per-node"))
        cluster->gpus_per_node = s.num_gpus_per_node;
    cluster->validateSizes();
    target.cluster = *cluster;
    target.efficiency = hardware::efficiencyFor(target.cluster); // a calibrated cluster's own, else the preset fit
    target.memory_limit_mb = hardware::gibToMb(
        inputs.given.contains("memory-constraint") ? s.memory_constraint_gb : target.cluster.gpu.memory_gb);
    return target;
}

StrategySearchRequest resolveStratexSearch(const StratexInputs& inputs, std::vector<std::string>* warnings)
{
    StratexTarget target = resolveStratexTarget(inputs);
    if (warnings)
        *warnings = std::move(target.warnings);
    StrategySearchRequest request;
    request.model = std::move(target.model);
    request.cluster = std::move(target.cluster);
    request.efficiency = target.efficiency;
    request.memory_limit_mb = target.memory_limit_mb;
    request.global_batch_size = inputs.stratex.global_batch_size;
    if (request.global_batch_size <= 0 && inputs.given.contains("settle-bsz") && inputs.settings.settle_bsz > 0)
        request.global_batch_size = inputs.settings.settle_bsz;
    if (request.global_batch_size <= 0)
        throw Error("the stratex cost model searches one global batch: give it (--global-batch-size N, the Global "
                    "batch field), or --cost-model galvatron to search Galvatron's batch range");
    request.space = inputs.stratex.resolvedSpace();
    // CUDA graphs the framework or the model cannot capture at all (docs/kernels.md §7): said here,
    // before a search refuses every candidate for it.
    if (request.space.cuda_graphs != CudaGraphs::None) {
        ParallelStrategy plain;
        plain.framework = request.space.framework;
        plain.cuda_graphs = request.space.cuda_graphs;
        plain.moe_token_dispatcher = MoeDispatcher::Flex;
        if (const std::string problem = cudaGraphsProblem(plain, request.model); !problem.empty())
            throw Error("--cuda-graphs " + std::string(cudaGraphsName(plain.cuda_graphs))
                + " (the CUDA graphs field): " + problem);
    }
    request.top = inputs.top;
    request.threads = inputs.threads;
    request.coverage = bundledCoverage(); // evidence on every plan (docs/evidence.md)
    return request;
}

PlanEvidence stratexPlanEvidence(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const ParallelStrategy& plan)
{
    return planEvidence(bundledCoverage(), model, cluster, plan);
}

StratexSearchRun runStratexSearch(const StrategySearchRequest& request, ProgressSink& progress, bool liftWorkBudget)
{
    requireBoundedStratexSearch(request, liftWorkBudget); // before enumerating the space for costing
    StratexSearchRun run;
    const auto start = std::chrono::steady_clock::now();
    {
        SubProgress searching(progress, 0.0, 0.9);
        run.result = searchStrategies(request, searching);
    }
    run.search_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SubProgress whatIfs(progress, 0.9, 1.0);
    std::vector<double> rankFactors;
    for (const PlanEvidence& evidence : run.result.evidence)
        rankFactors.push_back(rankingTimeMs(1.0, evidence.extrapolated));
    run.robustness = rankingRobustness(request.model, hardware::HardwareModel(request.cluster, request.efficiency),
        run.result.best, request.memory_limit_mb, whatIfs, rankFactors);
    run.threads = effectiveThreads(request.threads);
    return run;
}

sim::Timeline stratexPlanTimeline(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const Estimate& plan)
{
    const hardware::HardwareModel hw(cluster, hardware::efficiencyFor(cluster));
    // The estimate's own ledger: model state per stage and activations per op, so the curve's
    // maximum on each stage is the plan's allocated peak there.
    const PipelineSimulation pipeline = pipelineSimulation(model, plan.strategy, hw);
    return sim::simulate(pipeline.input, pipeline.schedule, [&] {
        sim::SimulationOptions options = pipeline.options;
        options.build_timeline = true;
        return options;
    }()).timeline;
}

} // namespace stratex::megatron
