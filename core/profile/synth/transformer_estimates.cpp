// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/transformer_estimates.h"

namespace stratex::profile::synth {

namespace {

double kvDim(const model::ModelDescription& model)
{
    return model.kvHiddenSize(); // num_kv_heads x head_dim (model_description.h)
}

double mlpMatrices(const model::ModelDescription& model)
{
    return model.mlp == model::MlpKind::Gated ? 3.0 : 2.0;
}

// Galvatron's profiles describe one layer type, so a MoE model is written as its average layer:
// every expert's weights are stored (no expert parallelism in Galvatron's formats), only the
// top-k experts' and the shared experts' widths are computed and kept for backward.
double averageMlpParameters(const model::ModelDescription& model)
{
    const double h = model.hidden_size;
    const double dense = mlpMatrices(model) * h * model.ffn_hidden_size;
    if (!model.moe)
        return dense;
    const model::MoeDescription& moe = *model.moe;
    const double moeLayer = mlpMatrices(model) * h
            * (double(moe.num_experts) * moe.expert_ffn_hidden_size
                + double(moe.shared_experts) * moe.shared_expert_ffn_hidden_size)
        + h * moe.num_experts;
    const int moeLayers = model.moeLayerCount();
    return ((model.num_layers - moeLayers) * dense + moeLayers * moeLayer) / model.num_layers;
}

double averageActiveFfnWidth(const model::ModelDescription& model)
{
    if (!model.moe)
        return model.ffn_hidden_size;
    const model::MoeDescription& moe = *model.moe;
    const double moeWidth = double(moe.top_k) * moe.expert_ffn_hidden_size
        + double(moe.shared_experts) * moe.shared_expert_ffn_hidden_size;
    const int moeLayers = model.moeLayerCount();
    return ((model.num_layers - moeLayers) * double(model.ffn_hidden_size) + moeLayers * moeWidth) / model.num_layers;
}

} // namespace

double layerParameters(const model::ModelDescription& model)
{
    const double h = model.hidden_size;
    const double attention = 2 * h * model.attentionWidth() + 2 * h * kvDim(model);
    return attention + averageMlpParameters(model) + 2 * h;
}

double embeddingParameters(const model::ModelDescription& model)
{
    return double(model.vocab_size) * model.hidden_size;
}

double modelParameters(const model::ModelDescription& model)
{
    const double embeddings = embeddingParameters(model) * (model.tied_embeddings ? 1 : 2);
    return model.num_layers * layerParameters(model) + embeddings + model.hidden_size;
}

double layerForwardFlops(const model::ModelDescription& model, int seq)
{
    const double s = seq;
    const double h = model.hidden_size;
    const double q = model.attentionWidth();
    const double gemmWeights = 2 * h * q + 2 * h * kvDim(model) + mlpMatrices(model) * h * averageActiveFfnWidth(model);
    return 2 * s * gemmWeights + 4 * s * s * q;
}

double headForwardFlops(const model::ModelDescription& model, int seq)
{
    return 2.0 * seq * embeddingParameters(model);
}

double layerActivationBytes(const model::ModelDescription& model, int seq, int tp, bool sequenceParallel, int elementBytes)
{
    const double h = model.hidden_size;
    // Elements per token. Replicated without SP: input and output of both norms. Split by tp:
    // Q, K, V, the attention output, and the MLP's intermediate tensors (gate, up and their
    // product for a gated MLP; the GEMM output and the activation for a plain one).
    const double replicated = 4 * h;
    const double split = 2.0 * model.attentionWidth() + 2 * kvDim(model) + mlpMatrices(model) * averageActiveFfnWidth(model);
    const double perToken = sequenceParallel ? (replicated + split) / tp : replicated + split / tp;
    return kAllocatedOverStored * elementBytes * perToken * seq;
}

double checkpointBytes(const model::ModelDescription& model, int seq, int elementBytes)
{
    return kAllocatedOverStored * elementBytes * double(model.hidden_size) * seq;
}

} // namespace stratex::profile::synth
