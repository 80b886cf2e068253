// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/transformer_estimates.h"

namespace stratex::profile::synth {

namespace {

double kvDim(const ModelDescription& model)
{
    return double(model.hidden_size) / model.num_heads * model.num_kv_heads;
}

double mlpMatrices(const ModelDescription& model)
{
    return model.mlp == MlpKind::Gated ? 3.0 : 2.0;
}

} // namespace

double layerParameters(const ModelDescription& model)
{
    const double h = model.hidden_size;
    const double attention = 2 * h * h + 2 * h * kvDim(model);
    const double mlp = mlpMatrices(model) * h * model.ffn_hidden_size;
    return attention + mlp + 2 * h;
}

double embeddingParameters(const ModelDescription& model)
{
    return double(model.vocab_size) * model.hidden_size;
}

double modelParameters(const ModelDescription& model)
{
    const double embeddings = embeddingParameters(model) * (model.tied_embeddings ? 1 : 2);
    return model.num_layers * layerParameters(model) + embeddings + model.hidden_size;
}

double layerForwardFlops(const ModelDescription& model, int seq)
{
    const double s = seq;
    const double gemmWeights = layerParameters(model) - 2.0 * model.hidden_size;
    return 2 * s * gemmWeights + 4 * s * s * model.hidden_size;
}

double headForwardFlops(const ModelDescription& model, int seq)
{
    return 2.0 * seq * embeddingParameters(model);
}

double layerActivationBytes(const ModelDescription& model, int seq, int tp, bool sequenceParallel, int elementBytes)
{
    const double h = model.hidden_size;
    // Elements per token. Replicated without SP: input and output of both norms. Split by tp:
    // Q, K, V, the attention output, and the MLP's intermediate tensors (gate, up and their
    // product for a gated MLP; the GEMM output and the activation for a plain one).
    const double replicated = 4 * h;
    const double split = 2 * h + 2 * kvDim(model) + (mlpMatrices(model)) * model.ffn_hidden_size;
    const double perToken = sequenceParallel ? (replicated + split) / tp : replicated + split / tp;
    return kAllocatedOverStored * elementBytes * perToken * seq;
}

double checkpointBytes(const ModelDescription& model, int seq, int elementBytes)
{
    return kAllocatedOverStored * elementBytes * double(model.hidden_size) * seq;
}

} // namespace stratex::profile::synth
