// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/estimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/common/plan_figures.h"
#include "core/hardware/device_memory.h"
#include "core/megatron/chunk_costs.h"
#include "core/megatron/dp_traffic.h"
#include "core/megatron/estimate_memo.h"
#include "core/megatron/gpu_support.h"
#include "core/megatron/hsdp.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/memory_ledger_explain.h"
#include "core/megatron/model_state_memory.h"
#include "core/megatron/pipeline_costs.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/stage_memory.h"
#include "core/model/mla_shapes.h"
#include "core/sim/simulator.h"

namespace stratex::megatron {

namespace {

// Megabytes as a whole number for messages; a log or a file can describe runs whose memory does
// not fit in an int (found by fuzz_megatron_log).
std::string wholeMb(double mb)
{
    if (!std::isfinite(mb))
        return "unbounded";
    return std::to_string(std::llround(std::clamp(mb, -1e18, 1e18)));
}

constexpr double kMb = 1e6;
constexpr double kBytes = 2;

// The simulated pipeline: its makespan and each stage's allocated-memory peak (the ledger: model
// state + every op's saved activations in schedule order + the running op's transient).
struct SimulatedPipeline {
    double makespan_s = 0;
    std::vector<double> peak_mb_per_stage;
    // Of each stage's peak: the step's gradients alive then, those the ledger adds at a chunk's
    // first backward and changes at its last (StageState::step_gradients_mb; empty: none).
    std::vector<double> first_backward_gradients_mb_per_stage;
};

SimulatedPipeline simulatePipeline(const PipelineSimulation& pipeline)
{
    const sim::SimulationResult result = sim::simulate(pipeline.input, pipeline.schedule, pipeline.options);
    return { result.makespan_us * 1e-6, result.peak_memory_mb_per_device, result.peak_state_joined_mb_per_device };
}

// Activations at the peak, in micro-batches of a whole stage: 1F1B warms up p - i of them;
// interleaving warms up (p - i - 1)·2 + (v - 1)·p + 1 chunks (Megatron's schedules.py), whose
// own sizes interleavedWarmupActivation adds for the bound.
double inflightMicrobatches(const ParallelStrategy& s, int stage)
{
    const int m = s.microbatches();
    if (s.pp == 1)
        return 1;
    if (s.vpp > 1) {
        // (v - 1)·N with the micro-batch group N (pp by default): get_pp_rank_microbatches.
        const int chunks = std::min(m * s.vpp, (s.pp - stage - 1) * 2 + (s.vpp - 1) * s.microbatchGroupSize() + 1);
        return double(chunks) / s.vpp;
    }
    return std::min(s.pp - stage, m);
}

// A lower bound of an interleaved stage's activation peak, unsimulated: the activations of the
// forwards that run before its first backward, in the order the simulated schedule runs them
// (sim/schedule_orders.cpp interleavedOrders: slot t of a group of p·v is micro-batch g·p + t mod p
// of chunk t / p), with the transient of the last of them. Chunks of a stage differ (uneven
// first and last layouts, the stage output a chunk keeps), so the warm-up count times the stage's
// mean chunk overstated the ledger by up to 9 % and the search's first pass dropped candidates
// the simulation fits (issue 22: the search must be right where it goes). (WarmupActivation:
// estimate_memo.h, whose entries keep it per stage.)

// interleavedWarmupActivation with a micro-batch group N other than pp (docs/memory-model.md,
// "Micro-batch group N"): Megatron-Core's get_schedule_table (schedules.py @ d98e8a64) runs the
// micro-batches in groups of N, each group through every chunk in turn, the last group holding
// the rest; get_pp_rank_microbatches warms up (p - i - 1)·2 + (v - 1)·N of them.
WarmupActivation groupedWarmupActivation(
    const std::vector<ChunkCost>& chunks, const ParallelStrategy& s, int stage, double sendBytes)
{
    const int p = s.pp;
    const int v = s.vpp;
    const int m = s.microbatches();
    const int n = s.microbatchGroupSize();
    const int total = m * v;
    const int forwards = std::min(total, (p - stage - 1) * 2 + (v - 1) * n + 1);
    const KeptActivation kept(s, sendBytes);
    WarmupActivation w;
    int t = 0;
    for (int first = 0; first < m && t < forwards; first += n) {
        const int size = first + n >= m ? m - first : n;
        for (int chunk = 0; chunk < v && t < forwards; ++chunk) {
            const std::size_t index = std::size_t(chunk * p + stage);
            for (int k = 0; k < size && t < forwards; ++k, ++t) {
                w.activation_bytes += kept.bytes(chunks[index].activation_bytes, index, chunks.size());
                w.transient_bytes = chunks[index].transient_bytes;
            }
        }
    }
    return w;
}

WarmupActivation interleavedWarmupActivation(const std::vector<ChunkCost>& chunks, const ParallelStrategy& s,
    int stage, double sendBytes)
{
    const int p = s.pp;
    const int v = s.vpp;
    const int m = s.microbatches();
    // The schedule pipelineScheduleKind runs: any N but pp is get_schedule_table's (a set
    // microbatch_group_size, or torch's micro-batches per round for torchtitan).
    if (s.microbatchGroupSize() != p)
        return groupedWarmupActivation(chunks, s, stage, sendBytes);
    const int groups = (m + p - 1) / p;
    const int total = groups * p * v;
    int warmup = std::min((p - stage - 1) * 2 + (v - 1) * p, (m / p) * p * v);
    const int forwards = warmup == 0 ? total : std::min(total, warmup + 1);
    // The slot's (group, chunk, rank) follow t without dividing, and the kept bytes are worked out
    // once (KeptActivation): the search's first pass runs this loop for each stage of each memo
    // entry (issue 22 item 8).
    const KeptActivation kept(s, sendBytes);
    WarmupActivation w;
    int group = 0; // t / (p·v)
    int chunk = 0; // (t mod p·v) / p
    int rank = 0; // t mod p
    for (int t = 0; t < forwards; ++t) {
        if (group * p + rank < m) { // else a slot past the last micro-batch: the schedule skips it
            const std::size_t index = std::size_t(chunk * p + stage);
            const ChunkCost& c = chunks[index];
            w.activation_bytes += kept.bytes(c.activation_bytes, index, chunks.size());
            w.transient_bytes = c.transient_bytes;
        }
        if (++rank == p) {
            rank = 0;
            if (++chunk == v) {
                chunk = 0;
                ++group;
            }
        }
    }
    return w;
}

// The NCCL communicators a rank of this plan uses (Megatron's process groups, created with
// parallel_state.initialize_model_parallel; NCCL connects a group's buffers on its first
// collective): TP, CP, data parallel with CP (gradients, distributed optimizer), expert and
// expert-data-parallel groups for MoE, and the pipeline's send/recv neighbours.
std::vector<hardware::Communicator> planCommunicators(const model::ModelDescription& model, const ParallelStrategy& s)
{
    std::vector<hardware::Communicator> groups;
    groups.reserve(8); // one allocation per candidate of a search (issue 22: speed)
    groups.push_back({ "tp", s.tp, false });
    groups.push_back({ "cp", s.cp, false });
    groups.push_back({ "dp", s.dp * s.cp, false });
    if (model.moe) {
        groups.push_back({ "ep", s.ep * s.etp, false });
        groups.push_back({ "expert-dp", s.expertDp(), false });
    }
    if (isHybridSharded(s)) { // HSDP's intra and inter partial data-parallel groups (hsdp.h)
        groups.push_back({ "dp-shard", s.dpShard() * s.cp, false });
        groups.push_back({ "dp-replicate", s.dpReplicas(), false });
    }
    groups.push_back({ "pp", s.pp, true });
    return groups;
}

// The device memory beside the tensors that does not follow a stage's churn (deviceMemory() with
// none): the same for every stage of a plan.
hardware::DeviceMemory fixedDeviceMemory(
    const model::ModelDescription& model, const ParallelStrategy& s, const hardware::ClusterDescription& cluster)
{
    hardware::DeviceMemoryInput device;
    device.gpu_name = cluster.gpu.name;
    device.communicators = planCommunicators(model, s);
    return hardware::deviceMemory(device);
}

// The same kept with the memo's chunk costs: planCommunicators() reads, beyond the chunk costs'
// key, whether ZeRO shards (isHybridSharded: zero >= 1) and dp_shard.
const hardware::DeviceMemory& memoFixedDevice(EstimateMemo::Entries::Entry& entry, const model::ModelDescription& model,
    const ParallelStrategy& s, const hardware::ClusterDescription& cluster)
{
    EstimateMemo::Entries::Entry::FixedDevice& fixed = entry.fixed_device[s.zero >= 1 ? 1 : 0];
    if (!fixed.valid || fixed.dp_shard != s.dp_shard) {
        fixed.memory = fixedDeviceMemory(model, s, cluster);
        fixed.dp_shard = s.dp_shard;
        fixed.valid = true;
    }
    return fixed.memory;
}

} // namespace

PipelineSimulation pipelineSimulation(
    const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw)
{
    const std::vector<int> stageLayers = stageLayerCounts(s, model.num_layers);
    const PipelineCosts costs = pipelineCosts(model, s, hw, stageLayers);
    return memoryPipeline(costs, stageStates(model, costs, s, stageLayers, hw.cluster()), s, hw);
}

double modelFlopsPerIteration(const model::ModelDescription& model, long long globalBatch)
{
    const double h = model.hidden_size;
    const double s = model.seq_length;
    const double mats = model.mlp == model::MlpKind::Gated ? 3 : 2;
    const model::ParameterCount count = model::countParameters(model);
    // Causal QK^T and PV: 2 x 2sq / 2 with q = heads x head_dim (training.py query_projection_size); MLA's over heads x (nope + rope) and heads x v (Megatron-LM
    // training.py num_floating_point_operations, standard_self_attn_core_term, d98e8a64). The
    // projections are count.attention's weights.
    const double coreAttention = model.mla ? s * model.num_heads * (double(model::qkHeadDim(model)) + model::vHeadDim(model)) : 2 * s * double(model.attentionWidth());
    double perToken = 0;
    for (int layer = 0; layer < model.num_layers; ++layer) {
        double mlp = count.dense_mlp;
        if (model.isMoeLayer(layer))
            mlp = mats * h * model.moe->expert_ffn_hidden_size * model.moe->top_k + count.shared_mlp;
        perToken += 2 * (count.attention + mlp) + coreAttention;
    }
    perToken += 2 * h * model.vocab_size;
    return 3 * perToken * s * double(globalBatch);
}

Estimate estimate(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw,
    const EstimateOptions& options)
{
    Estimate result;
    result.strategy = s;
    const hardware::ClusterDescription& cluster = hw.cluster();
    result.problems = strategyProblems(s, model, static_cast<long long>(cluster.worldSize()));
    for (std::string& problem : gpuSupportProblems(s, cluster.gpu.name)) // Volta: fp16, no flash (gpu_support.h)
        result.problems.push_back(std::move(problem));
    // A GPU's memory size is binary: an "80 GB" A100 or H100 has 80 GiB (nvidia-smi: 81920 and
    // 81559 MiB), which is what the CUDA allocator can hand out beside the context.
    result.memory_limit_mb = options.memory_limit_mb > 0 ? options.memory_limit_mb : hardware::gibToMb(cluster.gpu.memory_gb);
    if (!result.problems.empty()) {
        result.fits = false;
        return result;
    }
    const hardware::Efficiency& eff = hw.efficiency();
    const int p = s.pp;
    const int v = s.vpp;
    const int m = s.microbatches();
    // The chunk costs, from the memo when a candidate that differs only in what they do not read
    // was costed before (one memo serves one search: the same scales throughout).
    std::vector<int> ownLayers;
    PipelineCosts ownCosts;
    const std::vector<int>* layersUsed = &ownLayers;
    const PipelineCosts* costsUsed = &ownCosts;
    std::vector<EstimateMemo::Entries::DpEntry>* dpStages = nullptr;
    EstimateMemo::Entries::Entry* entry = nullptr;
    if (options.memo) {
        entry = &memoEntry(*options.memo->entries, model, s, hw, options.scales);
        layersUsed = &entry->stage_layers;
        costsUsed = &entry->costs;
    } else {
        ownLayers = stageLayerCounts(s, model.num_layers);
        ownCosts = pipelineCosts(model, s, hw, ownLayers, options.scales);
    }
    const std::vector<int>& stageLayers = *layersUsed;
    const PipelineCosts& costs = *costsUsed;
    const std::vector<ChunkCost>& chunks = costs.chunks;
    const EndCosts& end = costs.end;
    // Each stage's sums over its chunks, kept with the memo's chunk costs.
    std::vector<StageChunkSums> ownSums;
    const std::vector<StageChunkSums>& stageSums = entry ? entry->stage_sums : (ownSums = stageChunkSums(costs, s));
    // The search's first pass under a threshold: the pipeline's lower bound alone may settle it,
    // before the stages' memory state (EstimateOptions::prune_above_ms). 99.7 % of
    // DeepSeek-V3-style's fitting candidates on 16,384 GPUs are settled so (docs/search-speed.md).
    if (!options.simulate_pipeline && !options.full_report
        && options.prune_above_ms < std::numeric_limits<double>::infinity()) {
        const double boundS = entry ? memoLowerBoundS(*entry, s)
                                    : pipelineLowerBoundS(chunks, p, v, m, s.schedule == PipelineSchedule::ZbH1);
        if (boundS * 1e3 + eff.iteration_overhead_ms > options.prune_above_ms) {
            result.pipeline_ms = boundS * 1e3;
            result.pruned = true;
            result.fits = false;
            return result;
        }
    }
    // One simulation gives the makespan and each stage's memory ledger (docs/memory-model.md).
    // The simulator's input (micro-batches x chunks) is built only when simulated: the search's
    // first pass bounds ~10^5 candidates and must not allocate it for each (issue 22: speed).
    std::vector<StageState> ownStates;
    const std::vector<StageState>& states = options.memo
        ? memoStageStates(*options.memo->entries, model, costs, s, stageLayers, cluster)
        : (ownStates = stageStates(model, costs, s, stageLayers, cluster));
    SimulatedPipeline simulated;
    bool ledger = true;
    if (p == 1) {
        double perMicrobatch = 0;
        for (const ChunkCost& c : chunks)
            perMicrobatch += c.forward_s + c.backward_s;
        simulated.makespan_s = m * perMicrobatch;
        simulated.peak_mb_per_stage = { states.front().allocatedMb() + singleStageActivationPeakMb(costs) };
    } else if (options.simulate_pipeline) {
        simulated = simulatePipeline(memoryPipeline(costs, states, s, hw));
    } else {
        ledger = false; // the lower bound below, once the candidate's memory is known to fit
    }
    double pipelineS = simulated.makespan_s;

    const TimeScales& scales = options.scales;
    const hardware::GroupShape denseDp { s.dp * s.cp, s.tp };
    const hardware::GroupShape expertDp { s.expertDp(), s.ep * s.etp };
    double worstTailS = 0;
    double busiestStageS = 0;
    // torchtitan's one-node launcher turns expandable segments on, its multi-node one does not
    // (framework.h); Megatron-Core leaves the allocator's default.
    const bool expandableSegments
        = options.expandable_segments.value_or(launcherExpandableSegments(s.framework, cluster.num_nodes));
    // The same for every stage: the CUDA context, the buffers of the communicators a rank holds
    // and the cuBLAS workspace; only the allocator cache follows each stage's churn.
    hardware::DeviceMemory ownFixedDevice;
    const hardware::DeviceMemory& fixedDevice = entry ? memoFixedDevice(*entry, model, s, cluster)
                                                      : (ownFixedDevice = fixedDeviceMemory(model, s, cluster));
    // Stages with the same parameters and layers have the same data-parallel traffic (the middle
    // stages of most pipelines): cost it once.
    struct DpKey {
        double dense = -1, expert = -1;
        int layers = -1;
    } lastDpKey;
    DpTraffic lastDp;
    // When the framework reduces and gathers (dp_traffic.h): per micro-batch or per iteration.
    const GradientReduction reduction = gradientReduction(s.framework, s.zero, s.pp);
    // The search's first pass reads no stage: keep none (a copy per stage per candidate).
    const bool keepStages = options.full_report || options.explain_peak;
    const double denseShard = denseShardDegree(s); // HSDP: the shard group (hsdp.h)
    const double expertShard = expertShardDegree(s);
    if (keepStages)
        result.stages.reserve(std::size_t(p));
    // One stage record reused: the first pass reads only what each iteration writes, and zeroing
    // a fresh one per stage of millions of candidates was a tenth of the search (issue 22: speed).
    StageEstimate stage;
    // Each stage's time (`time`: its data-parallel exposure and optimizer step) and memory.
    const auto costStages = [&](bool time, bool memory) {
        for (int i = 0; i < p; ++i) {
            if (keepStages)
                stage = StageEstimate {};
            stage.memory.optimizer_step_peak = false;
            stage.stage = i;
            stage.layers = stageLayers[std::size_t(i)];
            const StageChunkSums& sums = stageSums[std::size_t(i)];
            // The search's first pass (no stage kept, no ledger): a middle stage with the same chunk
            // sums, state and layers as the stage before it has no more micro-batches in flight
            // (inflightMicrobatches falls with the stage index) and hides no less of its
            // data-parallel traffic (dpExposure's windows grow with it), so it moves none of the
            // maxima a candidate is bounded by (busiest stage, tail, exposure, peaks): the middle
            // stages of a pipeline are costed once (issue 22: speed; plans byte-identical,
            // tests/benchmarks/search_output_check.sh). With virtual stages the warm-up depends on
            // the stage's own chunks, so only the data-parallel part is skipped there.
            const bool twinOfPrevious = !keepStages && !ledger && i > 0 && i + 1 < p
                && stageLayers[std::size_t(i)] == stageLayers[std::size_t(i - 1)] && sums == stageSums[std::size_t(i - 1)]
                && (options.memo ? options.memo->entries->states.same_as_previous[std::size_t(i)] != 0
                                 : states[std::size_t(i)] == states[std::size_t(i - 1)]);
            if (twinOfPrevious && v == 1)
                continue;
            const double denseParams = sums.dense_params;
            const double expertParams = sums.expert_params;
            const double activationBytes = sums.activation_bytes;
            const double transientBytes = sums.transient_bytes;
            const double forwardS = sums.forward_s;
            const double backwardS = sums.backward_s;
            stage.forward_ms = forwardS * 1e3;
            stage.backward_ms = backwardS * 1e3;
            if (time)
                busiestStageS = std::max(busiestStageS, m * (forwardS + backwardS));

            // Data parallelism: gradients reduced in fp32, weights gathered in 16 bit (ZeRO >= 1).
            if (time && !twinOfPrevious) {
                if (options.memo) {
                    if (!dpStages) // at the first stage that needs it: not for a candidate over memory
                        dpStages = &dpMemo(*options.memo->entries, s, options.scales.dp);
                    const auto found = std::ranges::find_if(*dpStages, [&](const EstimateMemo::Entries::DpEntry& e) {
                        return e.dense_params == denseParams && e.expert_params == expertParams && e.layers == stage.layers;
                    });
                    if (found != dpStages->end()) {
                        lastDp = found->traffic;
                    } else {
                        lastDp = dpTraffic(s, hw, denseDp, expertDp, denseParams, expertParams, stage.layers, scales.dp);
                        dpStages->push_back({ denseParams, expertParams, stage.layers, lastDp });
                    }
                } else if (lastDpKey.dense != denseParams || lastDpKey.expert != expertParams || lastDpKey.layers != stage.layers) {
                    lastDp = dpTraffic(s, hw, denseDp, expertDp, denseParams, expertParams, stage.layers, scales.dp);
                    lastDpKey = { denseParams, expertParams, stage.layers };
                }
                const DpTraffic& dp = lastDp;
                const DpExposure exposure = dpExposure(s, dp, reduction, eff.dp_overlap,
                    { i, p, v, m, stage.layers, forwardS, backwardS, pipelineS });
                const double exposedS = exposure.exposed_s;
                stage.dp_comm_ms = exposure.comm_s * 1e3;
                stage.dp_exposed_ms = exposedS * 1e3;
                // Adam over this GPU's shard: fp32 weight, gradient and two moments read and written,
                // the 16-bit weight written back, one more gradient read for the norm.
                const double shardParams = denseParams / denseShard + expertParams / expertShard;
                const double optimizerS = scales.compute * (hw.memoryBoundS(34 * shardParams) + hw.kernelOverheadS(20));
                worstTailS = std::max(worstTailS, exposedS + optimizerS);
                result.optimizer_ms = std::max(result.optimizer_ms, optimizerS * 1e3);
                result.dp_exposed_ms = std::max(result.dp_exposed_ms, stage.dp_exposed_ms);
            }
            if (!memory)
                continue;

            // Memory: the stage's model state, the ledger's activations at its peak, and what the
            // device holds around the tensors (docs/memory-model.md).
            StageMemory& mem = stage.memory;
            const StageState& state = states[std::size_t(i)];
            mem.weights_mb = state.state.weights_mb;
            mem.gradients_mb = state.state.gradients_mb;
            // The ledger's stage starts without the gradients its chunks allocate at their first
            // backward; those alive at the peak count as gradients again.
            // An unsimulated bound counts the moment its warm-up ends, before the stage's first
            // backward: none of them yet (a lower bound of the ledger's peak, as the search's first
            // pass needs; it counted them all and dropped torchtitan plans with PP that fit).
            double startMb = state.allocatedMb();
            if (p > 1 && state.step_gradients_mb > 0) {
                const std::vector<double>& joined = simulated.first_backward_gradients_mb_per_stage;
                const double alive = !ledger ? 0.0
                    : std::size_t(i) < joined.size() ? joined[std::size_t(i)]
                                                     : state.step_gradients_mb;
                mem.gradients_mb += alive - state.step_gradients_mb;
                startMb += alive - state.step_gradients_mb;
            }
            mem.optimizer_mb = state.state.optimizer_mb;
            mem.workspace_mb = state.workspace_mb;
            const double logitsMb = i == p - 1 ? end.logits_bytes / kMb : 0.0;
            double activationPeakMb = 0; // saved activations + the running op's transient (+ logits)
            double inflight = 0;
            if (ledger) {
                activationPeakMb = std::max(0.0, simulated.peak_mb_per_stage[std::size_t(i)] - startMb);
                const double perMicrobatchMb = activationBytes / kMb;
                inflight = perMicrobatchMb > 0
                    ? std::max(0.0, activationPeakMb - logitsMb - transientBytes / kMb) / perMicrobatchMb
                    : 0.0;
            } else {
                // An unsimulated bound: the warm-up count of Megatron's schedules (the ledger's peak
                // for 1F1B: the last warm-up forward over the earlier ones).
                inflight = inflightMicrobatches(s, i);
                activationPeakMb = (inflight * activationBytes + transientBytes) / kMb + logitsMb;
                if (v > 1) {
                    const auto compute = [&](int k) { return interleavedWarmupActivation(chunks, s, k, costs.send_bytes); };
                    const WarmupActivation warm
                        = entry ? memoWarmupActivation(*options.memo->entries, *entry, s, i, compute) : compute(i);
                    inflight = activationBytes > 0 ? warm.activation_bytes / activationBytes : 0.0;
                    activationPeakMb = (warm.activation_bytes + warm.transient_bytes) / kMb + logitsMb;
                }
            }
            stage.memory_from_ledger = ledger;
            if (keepStages) // only the kept stages show it
                stage.inflight_microbatches_x100 = int(std::lround(inflight * 100));
            mem.logits_mb = logitsMb;
            // + the pipelining stage's receive buffers and kept outputs (pipelineStageBuffers).
            mem.activations_mb = std::max(0.0, activationPeakMb - logitsMb) + state.pipeline_buffers_mb;
            // The optimizer step's peak, when it is higher than the backward's (model_state_memory.h
            // step_transient_mb: DeepSpeed ZeRO-3's sub-group gradient copies, deepspeed_memory.cpp):
            // then the activations and logits are freed and the gathered weights released, and the
            // breakdown shows that moment, the copies with the gradients.
            const double stepExtraMb = state.state.step_transient_mb - state.state.gathered_mb;
            if (stepExtraMb > mem.activations_mb - state.pipeline_buffers_mb + mem.logits_mb) {
                mem.weights_mb -= state.state.gathered_mb;
                mem.gradients_mb += state.state.step_transient_mb;
                mem.activations_mb = state.pipeline_buffers_mb;
                mem.logits_mb = 0;
                mem.optimizer_step_peak = true;
            }
            // What deviceMemory() gives with this churn (device_memory.h).
            hardware::DeviceMemory overhead = fixedDevice;
            overhead.allocator_cache_mb = hardware::allocatorCacheMb(activationPeakMb + state.state.gathered_mb
                    + state.state.freed_each_step_mb, eff.activation_fragmentation, expandableSegments);
            // + FSDP2's all-gather pool on its own stream: reserved, never allocated at the peak; + the
            // segment the pipeline step's merged output needs after the peak (lateAllocationSegmentMb).
            const double lateSegmentMb = hardware::lateAllocationSegmentMb(state.merged_output_mb,
                state.largest_loss_request_mb, state.state.optimizer_mb, expandableSegments);
            mem.allocator_cache_mb = overhead.allocator_cache_mb + state.state.staging_mb + lateSegmentMb;
            mem.cuda_context_mb = overhead.cuda_context_mb;
            mem.nccl_mb = overhead.nccl_mb;
            // memory_reserve_gb: device memory beyond the modelled parts (0 unless calibrated).
            mem.reserve_mb = overhead.outsideAllocatedMb() + state.state.staging_mb + lateSegmentMb
                + eff.memory_reserve_gb * 1e9 / kMb;
            result.allocated_peak_mb = std::max(result.allocated_peak_mb, mem.allocatedMb());
            result.device_peak_mb = std::max(result.device_peak_mb, mem.totalMb());
            if (!time && options.stop_over_memory && result.device_peak_mb > result.memory_limit_mb)
                return; // over memory already (EstimateOptions::stop_over_memory)
            if (keepStages)
                result.stages.push_back(stage);
        }
    };
    if (ledger || keepStages) {
        if (!ledger)
            pipelineS = entry ? memoLowerBoundS(*entry, s)
                              : pipelineLowerBoundS(chunks, p, v, m, s.schedule == PipelineSchedule::ZbH1);
        costStages(true, true);
    } else {
        // The search's first pass: a candidate over memory is dropped whatever its time, so its
        // memory comes first and its pipeline bound and data-parallel traffic are costed only
        // when it fits (a quarter of DeepSeek-V3-style's candidates on 16,384 GPUs do not;
        // issue 22: speed).
        costStages(false, true);
        if (result.device_peak_mb > result.memory_limit_mb) {
            result.peak_memory_mb = result.device_peak_mb;
            result.fits = false;
            return result;
        }
        pipelineS = entry ? memoLowerBoundS(*entry, s)
                          : pipelineLowerBoundS(chunks, p, v, m, s.schedule == PipelineSchedule::ZbH1);
        costStages(true, false);
    }

    result.pipeline_ms = pipelineS * 1e3;
    result.bubble_fraction = figures::pipelineBubble(busiestStageS, pipelineS); // core/common/plan_figures.h
    result.overhead_ms = eff.iteration_overhead_ms;
    result.iteration_ms = result.pipeline_ms + worstTailS * 1e3 + result.overhead_ms;
    const double world = double(cluster.worldSize());
    const double iterationS = result.iteration_ms * 1e-3;
    result.tokens_per_s_per_gpu = double(s.global_batch_size) * model.seq_length / iterationS / world;
    if (options.full_report) {
        const double flops = modelFlopsPerIteration(model, s.global_batch_size);
        result.model_tflops_per_gpu = flops / iterationS / world / 1e12;
        result.mfu = result.model_tflops_per_gpu / cluster.gpu.peak_tflops;
    }
    result.peak_memory_mb = result.device_peak_mb;
    result.fits = result.device_peak_mb <= result.memory_limit_mb;
    if (options.explain_peak && ledger)
        result.peak = explainPeak(model, s, hw, result);
    if (options.full_report && s.cpu_offload_layers > 0) {
        // Said out loud (docs/memory-model.md, "CPU activation offload"): what the host holds and
        // what the copies cost; the host's own memory is not checked.
        double hostMb = 0;
        double exposedMs = 0;
        int offloaded = 0;
        for (const ChunkCost& c : chunks) {
            hostMb += c.offloaded_bytes / kMb;
            exposedMs += c.offload_exposed_s * 1e3;
            offloaded += c.offloaded_layers;
        }
        result.notes.push_back("CPU activation offload: " + std::to_string(offloaded) + " of "
            + std::to_string(model.num_layers) + " layers' saved activations, " + wholeMb(hostMb)
            + " MB per micro-batch, in pinned host memory (not checked against the host's) over "
            + wholeMb(cluster.nodeTopology().host_link_gb_per_s) + " GB/s each way; the copies stall compute "
            + wholeMb(exposedMs) + " ms per micro-batch");
    }
    if (!result.fits && options.full_report) {
        // Which part is the margin: the device peak is the allocated peak plus what the GPU holds
        // around it; say both so a user sees whether tensors alone would fit.
        const StageMemory* worst = nullptr;
        for (const StageEstimate& kept : result.stages) {
            if (!worst || kept.memory.totalMb() > worst->totalMb())
                worst = &kept.memory;
        }
        result.notes.push_back("does not fit: " + wholeMb(result.device_peak_mb) + " MB on the device (allocated "
            + wholeMb(worst->allocatedMb()) + " + allocator cache " + wholeMb(worst->allocator_cache_mb)
            + " + CUDA context " + wholeMb(worst->cuda_context_mb) + " + NCCL " + wholeMb(worst->nccl_mb)
            + "), " + wholeMb(result.memory_limit_mb) + " MB on the GPU");
    }
    return result;
}

} // namespace stratex::megatron
