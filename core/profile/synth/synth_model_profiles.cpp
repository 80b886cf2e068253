// SPDX-License-Identifier: GPL-3.0-or-later
// The model half of a synthesized profile set: what Galvatron's model profiler would write for the
// computation (forward ms per sample) and memory (MB) of a layer and of the embedding / LM head.
#include <cmath>
#include <string>

#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/synth_rounding.h"
#include "core/profile/synth/transformer_estimates.h"

namespace stratex::profile::synth {

namespace {

// Small micro-batches run below the GPU's large-GEMM rate (kernel launches, tail effects): the
// per-sample time is T·(1 + k/(b·s)) for b samples of s tokens. Calibrated on the llama2-7b
// profile in tests/data, where bsz 1 costs 1.117x (layer) and 2.12x (embedding, LM head
// and loss) the per-sample time of bsz 8.
constexpr double kLayerOverheadTokens = 256;
constexpr double kOtherOverheadTokens = 3072;
// The softmax and cross-entropy over the logits are bound by memory traffic, not FLOPs.
constexpr double kLossBytesPerLogit = 6;
constexpr double kBytesPerMb = 1024.0 * 1024.0;

int elementBytes(const std::string& precision)
{
    return precision == "fp32" ? 4 : 2;
}

// fp32 runs on TF32 tensor cores at half the bf16 rate.
double effectiveFlopsPerMs(const hardware::GpuDescription& gpu, const std::string& precision)
{
    const double peak = gpu.peak_tflops * (precision == "fp32" ? 0.5 : 1.0);
    return peak * 1e12 * gpu.matmul_efficiency / 1e3;
}

double layerForwardMs(
    const model::ModelDescription& model, const hardware::GpuDescription& gpu, const std::string& precision, int bsz, int seq)
{
    const double ideal = layerForwardFlops(model, seq) / effectiveFlopsPerMs(gpu, precision);
    return ideal * (1 + kLayerOverheadTokens / (double(bsz) * seq));
}

double otherForwardMs(
    const model::ModelDescription& model, const hardware::GpuDescription& gpu, const std::string& precision, int bsz, int seq)
{
    const double gemm = headForwardFlops(model, seq) / effectiveFlopsPerMs(gpu, precision);
    const double loss = double(seq) * model.vocab_size * kLossBytesPerLogit / (gpu.hbm_gb_per_s * 1e9 / 1e3);
    return (gemm + loss) * (1 + kOtherOverheadTokens / (double(bsz) * seq));
}

std::string seqKey(int bsz, int seq)
{
    return "bsz" + std::to_string(bsz) + "_seq" + std::to_string(seq);
}

// Powers of two up to the world size: every TP / SP degree a search on this cluster may pick.
std::vector<int> parallelDegrees(const hardware::ClusterDescription& cluster)
{
    std::vector<int> degrees;
    for (int degree = 1; degree <= cluster.worldSize(); degree *= 2)
        degrees.push_back(degree);
    return degrees;
}

nlohmann::ordered_json layerEntry(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, int seq, bool sequenceParallel, int bytes)
{
    nlohmann::ordered_json activation;
    for (int tp : parallelDegrees(cluster))
        activation[std::to_string(tp)]
            = roundedMb(layerActivationBytes(model, seq, tp, sequenceParallel, bytes) / kBytesPerMb);
    activation["checkpoint"] = roundedMb(checkpointBytes(model, seq, bytes) / kBytesPerMb);
    // Galvatron counts parameters fp32-sized (4 bytes each), whatever the training precision.
    return { { "parameter_size", roundedMb(layerParameters(model) * 4 / kBytesPerMb) },
        { "tp_activation_per_bsz_dict", activation } };
}

enum class OtherPart { PipelineOff, First, Last };

// Embedding / LM head memory. Model states: 16 bytes per parameter (bf16 weights and fp32 master,
// gradients and Adam moments, as Galvatron's "x4 of fp32 size"), split by vocab TP. Activations
// per sample: the embedding output (s·h) and the logits with their softmax (s·V), split by TP.
nlohmann::ordered_json otherEntry(const model::ModelDescription& model, const hardware::ClusterDescription& cluster, int seq,
    bool sequenceParallel, int bytes, OtherPart part)
{
    const double h = model.hidden_size;
    const double embedding = embeddingParameters(model);
    const bool holdsEmbedding = part != OtherPart::Last;
    const bool holdsHead = part != OtherPart::First;
    // A tied head shares the embedding's weights unless the pipeline puts them on different stages.
    const double headWeights = (model.tied_embeddings && part == OtherPart::PipelineOff) ? 0 : embedding;
    nlohmann::ordered_json states;
    nlohmann::ordered_json activation;
    for (int degree : parallelDegrees(cluster)) {
        const double weights = (holdsEmbedding ? embedding : 0) + (holdsHead ? headWeights + h : 0);
        states[std::to_string(degree)] = roundedMb(16 * weights / degree / kBytesPerMb);
        // Element counts per token, measured-over-stored factor included (see transformer_estimates.h).
        const double embeddingOut = 6.0 * h; // the gathered embedding output and its fp32 copy
        const double logits = 3.0 * model.vocab_size; // logits, softmax and its gradient
        const double finalNorm = 2.0 * h;
        double perToken = 0;
        if (holdsEmbedding)
            perToken += sequenceParallel ? embeddingOut / degree : embeddingOut;
        if (holdsHead)
            perToken += logits / degree + (sequenceParallel ? finalNorm / degree : finalNorm);
        activation[std::to_string(degree)] = roundedMb(kAllocatedOverStored * bytes * perToken * seq / kBytesPerMb);
    }
    return { { "model_states", states }, { "activation", activation } };
}

} // namespace

nlohmann::ordered_json synthesizeComputationProfile(const model::ModelDescription& model, const hardware::GpuDescription& gpu,
    const std::string& precision, const std::vector<int>& seqs, int maxBsz)
{
    nlohmann::ordered_json file;
    // The batch sweep at the model's length first: Galvatron's static time mode reads the first key.
    for (int bsz = 1; bsz <= maxBsz; ++bsz) {
        file["layertype_0_" + seqKey(bsz, model.seq_length)]
            = roundedMs(layerForwardMs(model, gpu, precision, bsz, model.seq_length));
        file["layertype_other_" + seqKey(bsz, model.seq_length)]
            = roundedMs(otherForwardMs(model, gpu, precision, bsz, model.seq_length));
    }
    for (int seq : seqs) {
        if (seq == model.seq_length)
            continue;
        file["layertype_0_" + seqKey(1, seq)] = roundedMs(layerForwardMs(model, gpu, precision, 1, seq));
        file["layertype_other_" + seqKey(1, seq)] = roundedMs(otherForwardMs(model, gpu, precision, 1, seq));
    }
    return file;
}

nlohmann::ordered_json synthesizeMemoryProfile(const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    const std::string& precision, const std::vector<int>& seqs)
{
    const int bytes = elementBytes(precision);
    nlohmann::ordered_json file;
    for (const bool sp : { false, true }) {
        const std::string suffix = sp ? "_sp" : "";
        nlohmann::ordered_json layers;
        nlohmann::ordered_json off;
        nlohmann::ordered_json first;
        nlohmann::ordered_json last;
        for (int seq : seqs) {
            const std::string key = std::to_string(seq);
            layers[key] = layerEntry(model, cluster, seq, sp, bytes);
            off[key] = otherEntry(model, cluster, seq, sp, bytes, OtherPart::PipelineOff);
            first[key] = otherEntry(model, cluster, seq, sp, bytes, OtherPart::First);
            last[key] = otherEntry(model, cluster, seq, sp, bytes, OtherPart::Last);
        }
        file["layertype_0" + suffix] = layers;
        file["other_memory_pp_off" + suffix] = off;
        file["other_memory_pp_on_first" + suffix] = first;
        file["other_memory_pp_on_last" + suffix] = last;
    }
    return file;
}

} // namespace stratex::profile::synth
