// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/galvatron_layer_cost_model.h"

#include "core/common/error.h"

namespace stratex::planner {

namespace {
double forwardMs(const profile::TimeModel& model, double samples, int tp)
{
    if (model.kind == profile::TimeModel::Kind::Linear)
        return model.fit.slope * (samples / tp) + model.fit.intercept;
    return model.constant_ms * samples / tp;
}
} // namespace

GalvatronLayerCostModel::GalvatronLayerCostModel(galvatron::CostModel model, std::string name)
    : m_model(std::move(model))
    , m_name(std::move(name))
{
}

std::string GalvatronLayerCostModel::name() const
{
    const galvatron::ModelShape& shape = m_model.settings().model;
    return (m_name.empty() ? shape.name : m_name) + " (Galvatron profile at sequence length "
        + std::to_string(shape.seq_length) + ")";
}

bool GalvatronLayerCostModel::supports(int tp, RecomputeType recompute) const
{
    const profile::LayerMemoryModel& memory = m_model.inputs().memory.layer;
    if (!memory.activation_mb_per_sample.contains(tp))
        return false;
    switch (recompute) {
    case RecomputeType::None:
        return true;
    case RecomputeType::Full:
        return memory.checkpoint_mb_per_sample.has_value();
    case RecomputeType::Selective:
        return false;
    }
    return false;
}

std::vector<int> GalvatronLayerCostModel::tensorParallelSizes() const
{
    std::vector<int> sizes;
    for (const auto& [tp, mb] : m_model.inputs().memory.layer.activation_mb_per_sample)
        sizes.push_back(tp);
    return sizes;
}

double GalvatronLayerCostModel::samplesAtProfiledLength(int microBatchSize, int seqlen) const
{
    return double(microBatchSize) * double(seqlen) / double(m_model.settings().model.seq_length);
}

LayerCostEstimate GalvatronLayerCostModel::estimate(const LayerCostQuery& query) const
{
    if (!supports(query.tp, query.recompute))
        throw Error("the Galvatron profile has no numbers for tp " + std::to_string(query.tp) + " with "
            + std::string(recomputeTypeName(query.recompute)) + " recompute");
    const galvatron::CostInputs& in = m_model.inputs();
    const double samples = samplesAtProfiledLength(query.micro_batch_size, query.seqlen);
    LayerCostEstimate estimate;
    LayerEstimate& layer = estimate.encoder;
    layer.forward_ms = forwardMs(in.time.layer, samples, query.tp);
    layer.backward_ms = 2 * layer.forward_ms;
    if (query.recompute == RecomputeType::Full) {
        layer.backward_ms += layer.forward_ms;
        layer.stored_activation_mb = in.memory.layer.checkpointActivation() * samples;
        // Galvatron: a checkpointed layer's input is split over the TP group under Megatron-SP.
        if (query.tp > 1 && m_model.settings().sequence_parallel)
            layer.stored_activation_mb /= query.tp;
    } else {
        layer.stored_activation_mb = in.memory.layer.activation(query.tp) * samples;
    }
    layer.peak_activation_mb = layer.stored_activation_mb;
    estimate.postprocess_forward_ms = forwardMs(in.time.other, samples, query.tp);
    estimate.postprocess_backward_ms = 2 * estimate.postprocess_forward_ms;
    return estimate;
}

ModelParameterSizes GalvatronLayerCostModel::parameterSizes(int tp, RecomputeType) const
{
    const galvatron::CostInputs& in = m_model.inputs();
    ModelParameterSizes sizes;
    sizes.encoder_layer_param_mb = in.memory.layer.parameter_size_mb / 2 / tp;
    sizes.embedding_param_mb = in.memory.off.modelStates(tp) / 8;
    return sizes;
}

} // namespace stratex::planner
