// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/run_comparison.h"
#include "core/megatron/strategy_ranks.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "core/runs/run_arguments.h"
#include "core/hardware/cluster_description.h"
#include "core/ranks/rank_grid.h"

namespace stratex::runs {

namespace {

constexpr double kMbPerMib = 1.048576; // Megatron reports MiB; Stratex's memory is in MB
using hardware::kMbPerGib;

std::string sourceFiles(const MeasuredRun& run)
{
    std::string files;
    for (const RunSource& source : run.sources)
        files += (files.empty() ? "" : ", ") + source.file.string();
    return files.empty() ? std::string("the run") : files;
}

std::string joined(const std::vector<std::string>& items)
{
    std::string out;
    for (const std::string& item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

// Each rank's pipeline stage in Megatron's rank order (core/ranks builds the same grid Megatron does).
class StageOfRank {
public:
    StageOfRank(const megatron::ParallelStrategy& s, const std::string& order, int gpusPerNode)
    {
        try {
            m_grid = ranks::RankGrid::create(megatron::rankConfig(s, gpusPerNode, order));
        } catch (const Error&) {
            // A layout Megatron refuses has no stages to map to; megatron::estimate() reports why.
        }
    }

    std::optional<int> operator()(int rank) const
    {
        if (!m_grid || rank < 0 || rank >= m_grid->world())
            return std::nullopt;
        return m_grid->coordinates(rank).pp;
    }

private:
    std::optional<ranks::RankGrid> m_grid;
};

nlohmann::ordered_json optionalJson(const std::optional<double>& value)
{
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json valueJson(const ComparedValue& value)
{
    return { { "predicted", optionalJson(value.predicted) }, { "measured", optionalJson(value.measured) },
        { "error", optionalJson(value.error()) } };
}

std::optional<double> mean(const std::vector<double>& values)
{
    if (values.empty())
        return std::nullopt;
    double sum = 0;
    for (const double v : values)
        sum += v;
    return sum / double(values.size());
}

} // namespace

std::optional<double> ComparedValue::error() const
{
    if (!predicted || !measured || *measured <= 0)
        return std::nullopt;
    return *predicted / *measured - 1;
}

std::string gpuPresetForDeviceName(std::string_view name)
{
    const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
    if (has("A100"))
        return has("40GB") ? "a100-40gb" : "a100-80gb";
    if (has("H800"))
        return "h800-80gb";
    if (has("H100"))
        return has("96GB") || has("H100 NVL") ? "h100-96gb" : "h100-80gb";
    if (has("H200"))
        return "h200-141gb";
    if (has("GB200")) // before "B200", which it contains
        return "gb200-186gb";
    if (has("B200"))
        return "b200-192gb";
    if (has("L40S"))
        return "l40s-48gb";
    // "Tesla V100-SXM2-32GB" / "Tesla V100-SXM2-16GB"; the PCIe card (112 TFLOPS) has no preset.
    if (has("V100") && has("SXM2"))
        return has("16GB") ? "v100-16gb" : "v100-32gb";
    return "";
}

void requireCostable(const MeasuredRun& run)
{
    if (run.model && run.strategy)
        return;
    std::vector<std::string> missing = run.missing;
    if (missing.empty()) {
        for (const std::string_view name : requiredArguments())
            missing.emplace_back(name);
    }
    throw Error(sourceFiles(run) + ": the model and strategy are not known (no Megatron argument dump or record); "
        + "missing: " + joined(missing)
        + "; give them with a reference-run record or a Megatron log that has its argument dump");
}

hardware::ClusterDescription resolveCluster(const MeasuredRun& run, const ClusterChoice& choice)
{
    hardware::ClusterDescription cluster;
    if (run.cluster && !choice.gpu && !choice.gpus_per_node)
        return *run.cluster;
    std::vector<std::string> missing;
    std::string gpu = choice.gpu.value_or(run.cluster ? run.cluster->gpu.name : std::string());
    if (gpu.empty())
        gpu = gpuPresetForDeviceName(run.gpu_name);
    if (gpu.empty())
        missing.push_back(run.gpu_name.empty() ? "the GPU model (--gpu PRESET)"
                                               : "the GPU model (--gpu PRESET; the trace's \"" + run.gpu_name
                    + "\" is no preset)");
    const int perNode = choice.gpus_per_node.value_or(run.cluster ? run.cluster->gpus_per_node : 0);
    if (perNode <= 0)
        missing.push_back("GPUs per node (--gpus-per-node N)");
    std::optional<int> world = run.world_size;
    if (!world && run.strategy)
        world = run.strategy->world();
    if (!world)
        missing.push_back("the world size (world_size in the argument dump)");
    if (!missing.empty())
        throw Error(sourceFiles(run) + ": a Megatron log or trace does not say " + joined(missing) + "; give "
            + (missing.size() > 1 ? "them" : "it"));
    cluster.gpu = hardware::gpuPreset(gpu);
    cluster.gpus_per_node = std::min(perNode, *world);
    if (*world % cluster.gpus_per_node != 0)
        throw Error(sourceFiles(run) + ": " + std::to_string(*world) + " GPUs do not fill nodes of "
            + std::to_string(perNode));
    cluster.num_nodes = *world / cluster.gpus_per_node;
    return cluster;
}

RunComparison compareRun(const MeasuredRun& run, const hardware::ClusterDescription& cluster, const hardware::Efficiency& efficiency)
{
    requireCostable(run);
    RunComparison c;
    c.run = run;
    c.model = *run.model;
    c.strategy = *run.strategy;
    c.cluster = cluster;
    c.estimate = megatron::estimate(c.model, c.strategy, hardware::HardwareModel(cluster, efficiency));
    const megatron::Estimate& e = c.estimate;
    if (!e.problems.empty()) {
        c.notes.push_back("Megatron would not start this strategy: " + e.problems.front());
        return c;
    }
    const double world = cluster.worldSize();
    const double tokens = double(c.strategy.global_batch_size) * c.model.seq_length;
    const double flops = megatron::modelFlopsPerIteration(c.model, c.strategy.global_batch_size);
    c.iteration_ms.predicted = e.iteration_ms;
    c.tokens_per_s_per_gpu.predicted = e.tokens_per_s_per_gpu;
    c.tflops_per_gpu.predicted = e.model_tflops_per_gpu;
    c.peak_memory_mb.predicted = e.peak_memory_mb;
    if (run.iteration_ms) {
        const double seconds = *run.iteration_ms * 1e-3;
        c.iteration_ms.measured = *run.iteration_ms;
        c.tokens_per_s_per_gpu.measured = tokens / seconds / world;
        c.tflops_per_gpu.measured = flops / seconds / world / 1e12;
    } else {
        c.notes.push_back("no measured iteration time in " + sourceFiles(run));
    }
    if (run.world_size && *run.world_size != c.strategy.world())
        c.notes.push_back("the files say world size " + std::to_string(*run.world_size) + ", the strategy "
            + c.strategy.notation() + " has " + std::to_string(c.strategy.world()));

    const StageOfRank stageOf(c.strategy, run.rank_order, cluster.gpus_per_node);
    const int m = c.strategy.microbatches();
    c.stages.resize(e.stages.size());
    double peakMeasured = 0;
    for (std::size_t i = 0; i < e.stages.size(); ++i) {
        StageComparison& stage = c.stages[i];
        stage.stage = int(i);
        stage.memory_mb.predicted = e.stages[i].memory.totalMb();
        stage.forward_ms.predicted = e.stages[i].forward_ms * m;
        stage.backward_ms.predicted = e.stages[i].backward_ms * m;
        stage.dp_comm_ms.predicted = e.stages[i].dp_comm_ms;
        if (i < run.stage_peak_memory_gib.size())
            stage.memory_mb.measured = run.stage_peak_memory_gib[i] * hardware::kMbPerGib;
    }
    for (const RankMemory& memory : run.memory) {
        const std::optional<int> s = stageOf(memory.rank);
        if (!s || *s >= int(c.stages.size())) {
            c.notes.push_back("memory of rank " + std::to_string(memory.rank) + " is outside the strategy's ranks");
            continue;
        }
        StageComparison& stage = c.stages[std::size_t(*s)];
        stage.memory_ranks.push_back(memory.rank);
        stage.memory_mb.measured = std::max(stage.memory_mb.measured.value_or(0), memory.max_reserved_mib * kMbPerMib);
        stage.measured_max_allocated_mb
            = std::max(stage.measured_max_allocated_mb.value_or(0), memory.max_allocated_mib * kMbPerMib);
    }
    for (const StageComparison& stage : c.stages)
        peakMeasured = std::max(peakMeasured, stage.memory_mb.measured.value_or(0));
    if (run.peak_memory_gib)
        peakMeasured = std::max(peakMeasured, *run.peak_memory_gib * hardware::kMbPerGib);
    if (peakMeasured > 0)
        c.peak_memory_mb.measured = peakMeasured;

    // Per-stage times: traces first, per-rank timers (--timing-log-option all) second.
    std::map<int, std::vector<const RankTrace*>> traced;
    for (const RankTrace& trace : run.traces) {
        const std::optional<int> s = stageOf(trace.rank);
        if (!s || *s >= int(c.stages.size())) {
            c.notes.push_back("traced rank " + std::to_string(trace.rank) + " is outside the strategy's ranks");
            continue;
        }
        traced[*s].push_back(&trace);
    }
    for (const auto& [s, traces] : traced) {
        StageComparison& stage = c.stages[std::size_t(s)];
        std::vector<double> fwd, bwd, dp, pp, exposed, other, span;
        for (const RankTrace* t : traces) {
            stage.traced_ranks.push_back(t->rank);
            fwd.push_back(t->forwardMs());
            bwd.push_back(t->backwardMs());
            dp.push_back(t->dp_comm_ms);
            pp.push_back(t->pp_comm_ms);
            exposed.push_back(t->exposed_comm_ms);
            other.push_back(t->other_compute_ms);
            span.push_back(t->span_ms);
        }
        stage.forward_ms.measured = mean(fwd);
        stage.backward_ms.measured = mean(bwd);
        stage.dp_comm_ms.measured = mean(dp);
        stage.measured_pp_comm_ms = mean(pp);
        stage.measured_exposed_comm_ms = mean(exposed);
        stage.measured_other_ms = mean(other);
        stage.measured_span_ms = mean(span);
        stage.times_from = "chrome-trace";
    }
    for (const TimerValue& timer : run.timers) {
        const bool forward = timer.name == "forward-compute";
        const bool backward = timer.name == "backward-compute";
        TimerComparison row { timer.name, timer.min_ms, timer.max_ms, std::nullopt, std::nullopt };
        if (forward || backward) {
            for (const StageComparison& stage : c.stages) {
                const double predicted = *(forward ? stage.forward_ms : stage.backward_ms).predicted;
                row.predicted_min_ms = std::min(row.predicted_min_ms.value_or(predicted), predicted);
                row.predicted_max_ms = std::max(row.predicted_max_ms.value_or(predicted), predicted);
            }
            std::map<int, std::vector<double>> byStage;
            for (const auto& [rank, ms] : timer.rank_ms) {
                if (const std::optional<int> s = stageOf(rank); s && *s < int(c.stages.size()))
                    byStage[*s].push_back(ms);
            }
            for (const auto& [s, values] : byStage) {
                StageComparison& stage = c.stages[std::size_t(s)];
                if (!stage.times_from.empty() && stage.times_from != "megatron timers (all ranks)")
                    continue;
                (forward ? stage.forward_ms : stage.backward_ms).measured = mean(values);
                stage.times_from = "megatron timers (all ranks)";
            }
        }
        c.timers.push_back(row);
    }
    if (!run.traces.empty())
        c.notes.push_back("trace times: forward/backward = compute kernels + TP/CP/EP collectives launched in that "
                          "phase; dp = data-parallel collectives; pp = pipeline send/recv; per iteration");
    if (!run.memory.empty())
        c.notes.push_back("memory: predicted total against torch's max reserved (MiB converted to MB); the "
                          "prediction's reserve also holds the CUDA context and NCCL buffers");
    return c;
}

nlohmann::ordered_json comparisonJson(const RunComparison& c)
{
    using Json = nlohmann::ordered_json;
    Json sources = Json::array();
    for (const RunSource& source : c.run.sources)
        sources.push_back({ { "kind", sourceKindName(source.kind) }, { "file", source.file.string() } });
    Json run = { { "sources", sources }, { "model", c.model.name }, { "gpu", c.cluster.gpu.name },
        { "gpus", c.cluster.worldSize() }, { "num_nodes", c.cluster.num_nodes },
        { "gpus_per_node", c.cluster.gpus_per_node }, { "strategy", c.strategy.notation() },
        { "rank_order", c.run.rank_order }, { "iteration_from", c.run.iteration_from },
        { "iterations_used", c.run.iterations_used }, { "iterations_skipped", c.run.iterations_skipped } };
    Json out;
    out["run"] = run;
    out["problems"] = c.estimate.problems;
    out["iteration_ms"] = valueJson(c.iteration_ms);
    out["tokens_per_s_per_gpu"] = valueJson(c.tokens_per_s_per_gpu);
    out["tflops_per_gpu"] = valueJson(c.tflops_per_gpu);
    out["tflops_per_gpu"]["logged"] = optionalJson(c.run.logged_tflops_per_gpu);
    out["peak_memory_mb"] = valueJson(c.peak_memory_mb);
    out["predicted"] = { { "pipeline_ms", c.estimate.pipeline_ms }, { "bubble_fraction", c.estimate.bubble_fraction },
        { "dp_exposed_ms", c.estimate.dp_exposed_ms }, { "optimizer_ms", c.estimate.optimizer_ms },
        { "mfu", c.estimate.mfu }, { "fits", c.estimate.fits }, { "memory_limit_mb", c.estimate.memory_limit_mb } };
    Json stages = Json::array();
    for (const StageComparison& s : c.stages) {
        stages.push_back({ { "stage", s.stage }, { "memory_ranks", s.memory_ranks }, { "traced_ranks", s.traced_ranks },
            { "memory_mb", valueJson(s.memory_mb) }, { "measured_max_allocated_mb", optionalJson(s.measured_max_allocated_mb) },
            { "forward_ms", valueJson(s.forward_ms) }, { "backward_ms", valueJson(s.backward_ms) },
            { "dp_comm_ms", valueJson(s.dp_comm_ms) }, { "measured_pp_comm_ms", optionalJson(s.measured_pp_comm_ms) },
            { "measured_exposed_comm_ms", optionalJson(s.measured_exposed_comm_ms) },
            { "measured_other_ms", optionalJson(s.measured_other_ms) }, { "measured_span_ms", optionalJson(s.measured_span_ms) },
            { "times_from", s.times_from } });
    }
    out["stages"] = stages;
    Json timers = Json::array();
    for (const TimerComparison& t : c.timers) {
        timers.push_back({ { "name", t.name }, { "measured_min_ms", t.measured_min_ms }, { "measured_max_ms", t.measured_max_ms },
            { "predicted_min_ms", optionalJson(t.predicted_min_ms) }, { "predicted_max_ms", optionalJson(t.predicted_max_ms) } });
    }
    out["timers"] = timers;
    Json ranks = Json::array();
    for (const RankTrace& t : c.run.traces) {
        ranks.push_back({ { "rank", t.rank }, { "device", t.device }, { "span_ms", t.span_ms },
            { "forward_compute_ms", t.forward_compute_ms }, { "backward_compute_ms", t.backward_compute_ms },
            { "other_compute_ms", t.other_compute_ms }, { "layer_comm_forward_ms", t.layer_comm_forward_ms },
            { "layer_comm_backward_ms", t.layer_comm_backward_ms }, { "dp_comm_ms", t.dp_comm_ms },
            { "pp_comm_ms", t.pp_comm_ms }, { "exposed_comm_ms", t.exposed_comm_ms },
            { "collectives_ms", { { "all_reduce", t.all_reduce_ms }, { "all_gather", t.all_gather_ms },
                                    { "reduce_scatter", t.reduce_scatter_ms }, { "all_to_all", t.all_to_all_ms },
                                    { "send_recv", t.send_recv_ms }, { "other", t.other_comm_ms } } },
            { "kernels", t.kernels }, { "nccl_kernels", t.nccl_kernels } });
    }
    out["traced_ranks"] = ranks;
    std::vector<std::string> notes = c.run.notes;
    notes.insert(notes.end(), c.notes.begin(), c.notes.end());
    out["notes"] = notes;
    return out;
}

} // namespace stratex::runs
