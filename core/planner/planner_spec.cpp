// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_spec.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/error.h"

namespace stratex::planner {

namespace {
constexpr double kUsPerMs = 1000;
constexpr double kBytesPerActivationElement = 2; // fp16/bf16
constexpr double kBytesPerMb = 1e6;

double nonNegative(double value)
{
    // Linear extrapolation below the profiled range can dip under zero for tiny shapes.
    return std::max(0.0, value);
}
} // namespace

PipelineModel makePipelineModel(
    int numStages, int layersPerStage, int chunksPerDevice, bool encoderDecoder, ChunkPlacement placement)
{
    if (numStages < 1 || layersPerStage < 1 || chunksPerDevice < 1)
        throw Error("stages, layers per stage and chunks must be at least 1");
    if (placement == ChunkPlacement::V && chunksPerDevice != 2) {
        throw Error(
            "a V placement has 2 chunks per device (down the model and back), got " + std::to_string(chunksPerDevice));
    }
    PipelineModel model;
    model.num_stages = numStages;
    model.layers_per_stage = layersPerStage;
    model.chunks_per_device = chunksPerDevice;
    for (int chunk = 0; chunk < chunksPerDevice; ++chunk) {
        for (int k = 0; k < numStages; ++k) {
            // The V's second chunk comes back: device p-1 first, device 0 last.
            const bool back = placement == ChunkPlacement::V && chunk == 1;
            const int device = back ? numStages - 1 - k : k;
            for (int layer = 0; layer < layersPerStage; ++layer)
                model.device_assignment.push_back(device);
        }
    }
    if (encoderDecoder) {
        if (model.layerCount() % 2 != 0) {
            throw Error("an encoder-decoder model needs an even number of layers (stages x chunks x layers per "
                        "stage = "
                + std::to_string(model.layerCount()) + ")");
        }
        model.first_decoder_layer = model.layerCount() / 2;
    }
    return model;
}

MicroBatchSpecBuilder::MicroBatchSpecBuilder(
    const LayerCostModel& model, PipelineModel pipeline, std::vector<MicroBatch> microbatches, SpecOptions options)
    : m_model(model)
    , m_pipeline(std::move(pipeline))
    , m_microbatches(std::move(microbatches))
    , m_options(std::move(options))
{
    for (std::size_t i = 0; i < m_microbatches.size(); ++i)
        m_idSlots.emplace_back(m_microbatches[i].id, static_cast<int>(i));
    std::sort(m_idSlots.begin(), m_idSlots.end());
    for (std::size_t i = 1; i < m_idSlots.size(); ++i) {
        if (m_idSlots[i].first == m_idSlots[i - 1].first)
            throw Error("micro-batch id " + std::to_string(m_idSlots[i].first) + " is used twice");
    }
    const std::size_t slots = m_microbatches.size() * kAllRecomputeTypes.size();
    m_costs.resize(slots);
    m_costsKnown.assign(slots, 0);
}

int MicroBatchSpecBuilder::slotOf(int microbatchId) const
{
    const auto it = std::lower_bound(m_idSlots.begin(), m_idSlots.end(), std::make_pair(microbatchId, -1));
    return it != m_idSlots.end() && it->first == microbatchId ? it->second : -1;
}

const MicroBatchSpecBuilder::Costs& MicroBatchSpecBuilder::costs(int microbatchId, RecomputeType type) const
{
    const int index = slotOf(microbatchId);
    if (index < 0)
        throw Error("unknown micro-batch id " + std::to_string(microbatchId));
    const std::size_t slot
        = static_cast<std::size_t>(index) * kAllRecomputeTypes.size() + static_cast<std::size_t>(type);
    if (m_costsKnown[slot])
        return m_costs[slot];
    const MicroBatch& mb = m_microbatches[static_cast<std::size_t>(index)];
    Costs costs;
    if (m_model.supports(m_options.tp, type)) {
        LayerCostQuery query;
        query.micro_batch_size = mb.micro_batch_size;
        query.seqlen = mb.padded_seqlen;
        query.decoder_seqlen = mb.padded_decoder_seqlen;
        query.tp = m_options.tp;
        query.recompute = type;
        const LayerCostEstimate estimate = m_model.estimate(query);
        costs.feasible = estimate.feasible();
        if (costs.feasible) {
            const double hidden = m_options.hidden_size;
            const double encoderMessage
                = mb.padded_seqlen * double(mb.micro_batch_size) * hidden * kBytesPerActivationElement / kBytesPerMb;
            const double decoderMessage = (mb.padded_seqlen + mb.padded_decoder_seqlen) * double(mb.micro_batch_size)
                * hidden * kBytesPerActivationElement / kBytesPerMb;
            auto layer = [](const LayerEstimate& e, double message) {
                sim::LayerCost cost;
                cost.fw_us = nonNegative(e.forward_ms * kUsPerMs);
                cost.bw_us = nonNegative(e.backward_ms * kUsPerMs);
                cost.stored_mb = nonNegative(e.stored_activation_mb);
                cost.peak_mb = nonNegative(e.peak_activation_mb);
                cost.fw_comm_mb = message;
                cost.bw_comm_mb = message;
                return cost;
            };
            costs.encoder = layer(estimate.encoder, encoderMessage);
            costs.decoder = layer(estimate.decoder, decoderMessage);
            costs.postprocess_fw_us = nonNegative(estimate.postprocess_forward_ms * kUsPerMs);
            costs.postprocess_bw_us = nonNegative(estimate.postprocess_backward_ms * kUsPerMs);
        }
    }
    m_costs[slot] = costs;
    m_costsKnown[slot] = 1;
    return m_costs[slot];
}

bool MicroBatchSpecBuilder::available(int microbatchId, RecomputeType type) const
{
    return costs(microbatchId, type).feasible;
}

MicroBatchSpecBuilder::DeviceFootprint MicroBatchSpecBuilder::footprint(
    int microbatchId, RecomputeType type, int device) const
{
    const int index = slotOf(microbatchId);
    if (index < 0 || device < 0 || device >= deviceCount())
        return computeFootprint(microbatchId, type, device); // throws for an unknown id
    const std::size_t types = kAllRecomputeTypes.size();
    if (m_footprints.empty()) {
        const std::size_t size = m_microbatches.size() * types * static_cast<std::size_t>(deviceCount());
        m_footprints.resize(size);
        m_footprintKnown.assign(size, 0);
    }
    const std::size_t slot = (static_cast<std::size_t>(index) * types + static_cast<std::size_t>(type))
            * static_cast<std::size_t>(deviceCount())
        + static_cast<std::size_t>(device);
    if (!m_footprintKnown[slot]) {
        m_footprints[slot] = computeFootprint(microbatchId, type, device);
        m_footprintKnown[slot] = 1;
    }
    return m_footprints[slot];
}

MicroBatchSpecBuilder::DeviceFootprint MicroBatchSpecBuilder::computeFootprint(
    int microbatchId, RecomputeType type, int device) const
{
    const Costs& c = costs(microbatchId, type);
    DeviceFootprint result;
    if (!c.feasible) {
        result.stored_mb = result.forward_peak_mb = result.compute_us = std::numeric_limits<double>::infinity();
        return result;
    }
    const int layers = m_pipeline.layerCount();
    for (int layer = 0; layer < layers; ++layer) {
        if (m_pipeline.device_assignment[static_cast<std::size_t>(layer)] != device)
            continue;
        const sim::LayerCost& cost = m_pipeline.isDecoderLayer(layer) ? c.decoder : c.encoder;
        result.forward_peak_mb = std::max(result.forward_peak_mb, result.stored_mb + cost.peak_mb);
        result.stored_mb += cost.stored_mb;
        result.compute_us += cost.fw_us + cost.bw_us;
        if (layer == layers - 1)
            result.compute_us += c.postprocess_fw_us + c.postprocess_bw_us;
    }
    return result;
}

double MicroBatchSpecBuilder::deviceModelStateMb(int device, RecomputeType modelStateRecompute) const
{
    auto it = m_deviceState.find(modelStateRecompute);
    if (it == m_deviceState.end()) {
        const std::vector<double>& state = modelState(modelStateRecompute);
        std::vector<double> perDevice(static_cast<std::size_t>(deviceCount()), 0.0);
        for (int layer = 0; layer < m_pipeline.layerCount(); ++layer) {
            const int owner = m_pipeline.device_assignment[static_cast<std::size_t>(layer)];
            perDevice[static_cast<std::size_t>(owner)] += state[static_cast<std::size_t>(layer)];
        }
        it = m_deviceState.emplace(modelStateRecompute, std::move(perDevice)).first;
    }
    return device >= 0 && device < deviceCount() ? it->second[static_cast<std::size_t>(device)] : 0.0;
}

double MicroBatchSpecBuilder::alonePeakMb(
    int microbatchId, RecomputeType type, int device, RecomputeType modelStateRecompute) const
{
    return deviceModelStateMb(device, modelStateRecompute) + footprint(microbatchId, type, device).forward_peak_mb;
}

double MicroBatchSpecBuilder::makespanLowerBoundUs(const RecomputePlan& plan, bool splitBackward) const
{
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    const int devices = deviceCount();
    const int layers = m_pipeline.layerCount();
    const std::vector<int>& assignment = m_pipeline.device_assignment;
    std::vector<double> busy(static_cast<std::size_t>(devices), 0.0);
    std::vector<double> fill(static_cast<std::size_t>(devices), kInfinity);
    std::vector<double> drain(static_cast<std::size_t>(devices), kInfinity);
    std::vector<char> reached(static_cast<std::size_t>(devices));
    std::vector<const Costs*> byDevice(static_cast<std::size_t>(devices));
    double longestChain = 0;
    for (const MicroBatch& mb : m_microbatches) {
        const std::vector<RecomputeType>& types = plan.ofMicrobatch(mb.id);
        for (std::size_t d = 0; d < byDevice.size(); ++d) {
            byDevice[d] = &costs(mb.id, types[d]);
            if (!byDevice[d]->feasible)
                return kInfinity;
        }
        std::fill(reached.begin(), reached.end(), 0);
        double forward = 0; // forward time from the first layer to here, transfers included
        double backward = 0;
        for (int layer = 0; layer < layers; ++layer) {
            const auto device = static_cast<std::size_t>(assignment[static_cast<std::size_t>(layer)]);
            const Costs& c = *byDevice[device];
            if (!reached[device]) {
                reached[device] = 1;
                fill[device] = std::min(fill[device], forward);
                drain[device] = std::min(drain[device], backward);
            }
            const sim::LayerCost& cost = m_pipeline.isDecoderLayer(layer) ? c.decoder : c.encoder;
            double fw = cost.fw_us;
            double bw = cost.bw_us;
            if (layer == layers - 1) {
                fw += c.postprocess_fw_us;
                bw += c.postprocess_bw_us;
            }
            busy[device] += fw + bw;
            forward += fw;
            backward += bw;
            if (layer + 1 < layers) {
                const int next = assignment[static_cast<std::size_t>(layer + 1)];
                const int here = static_cast<int>(device);
                forward += m_options.comm.transferUs(cost.fw_comm_mb, here, next);
                backward += m_options.comm.transferUs(cost.bw_comm_mb, next, here);
            }
        }
        longestChain = std::max(longestChain, forward + backward);
    }
    double bound = longestChain;
    for (std::size_t d = 0; d < busy.size(); ++d) {
        const double before = std::isfinite(fill[d]) ? fill[d] : 0.0;
        const double after = splitBackward || !std::isfinite(drain[d]) ? 0.0 : drain[d];
        bound = std::max(bound, before + busy[d] + after);
    }
    return bound;
}

const std::vector<double>& MicroBatchSpecBuilder::modelState(RecomputeType type) const
{
    if (const auto it = m_modelState.find(type); it != m_modelState.end())
        return it->second;
    RecomputeType source = type;
    if (!m_model.supports(m_options.tp, source)) {
        const std::vector<RecomputeType> types = m_model.recomputeTypes(m_options.tp);
        if (types.empty())
            throw Error("cost model " + m_model.name() + " has no sub-model for tp " + std::to_string(m_options.tp));
        source = types.front();
    }
    const ModelParameterSizes params = m_model.parameterSizes(m_options.tp, source);
    std::vector<double> state;
    for (int layer = 0; layer < m_pipeline.layerCount(); ++layer) {
        double paramMb
            = m_pipeline.isDecoderLayer(layer) ? params.decoder_layer_param_mb : params.encoder_layer_param_mb;
        // The first encoder and the first decoder layer carry the (shared) embedding.
        if (layer == 0 || layer == m_pipeline.first_decoder_layer)
            paramMb += params.embedding_param_mb;
        state.push_back(modelStateMb(paramMb, m_options.optimizer));
    }
    return m_modelState.emplace(type, state).first->second;
}

sim::MicrobatchSpec MicroBatchSpecBuilder::spec(int microbatchId, const RecomputePlan& plan) const
{
    sim::MicrobatchSpec spec;
    spec.id = microbatchId;
    const int layers = m_pipeline.layerCount();
    spec.layers.reserve(static_cast<std::size_t>(layers));
    const std::vector<RecomputeType>& types = plan.ofMicrobatch(microbatchId);
    // Layers come in runs per device: look the costs up once per run, not per layer.
    int runDevice = -1;
    const Costs* c = nullptr;
    for (int layer = 0; layer < layers; ++layer) {
        const int device = m_pipeline.device_assignment[static_cast<std::size_t>(layer)];
        if (device != runDevice) {
            if (device < 0 || device >= static_cast<int>(types.size()))
                throw Error("recompute plan has no device " + std::to_string(device));
            runDevice = device;
            c = &costs(microbatchId, types[static_cast<std::size_t>(device)]);
            if (!c->feasible) {
                throw Error("micro-batch " + std::to_string(microbatchId) + " has no finite cost under recompute "
                    + std::string(recomputeTypeName(types[static_cast<std::size_t>(device)])));
            }
        }
        sim::LayerCost cost = m_pipeline.isDecoderLayer(layer) ? c->decoder : c->encoder;
        if (layer == layers - 1) { // the LM head follows the last layer
            cost.fw_us += c->postprocess_fw_us;
            cost.bw_us += c->postprocess_bw_us;
        }
        spec.layers.push_back(cost);
    }
    return spec;
}

sim::SimulationInput MicroBatchSpecBuilder::input(
    const std::vector<int>& order, const RecomputePlan& plan, RecomputeType modelStateRecompute) const
{
    sim::SimulationInput input;
    input.device_assignment = m_pipeline.device_assignment;
    input.first_decoder_layer = m_pipeline.first_decoder_layer;
    input.model_state_mb_per_layer = modelState(modelStateRecompute);
    input.comm = m_options.comm;
    input.microbatches.reserve(order.size());
    for (int id : order)
        input.microbatches.push_back(spec(id, plan));
    return input;
}

} // namespace stratex::planner
