// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/profile_synthesizer.h"

#include <algorithm>
#include <set>

#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/common/json_output.h"
#include "core/model/model_json.h"
#include "core/profile/profile_discovery.h"
#include "core/hardware/cluster_json.h"

namespace stratex::profile::synth {

namespace {

std::vector<int> profiledSequenceLengths(const model::ModelDescription& model, const SynthesisOptions& options)
{
    std::set<int> seqs(options.seq_lengths.begin(), options.seq_lengths.end());
    if (seqs.empty()) {
        for (int quarter = 1; quarter <= 3; ++quarter) {
            if (const int seq = model.seq_length * quarter / 4; seq > 0)
                seqs.insert(seq);
        }
    }
    seqs.insert(model.seq_length); // static modes read the model's own length
    if (*seqs.begin() <= 0)
        throw Error("profile synth: sequence lengths must be positive, found " + std::to_string(*seqs.begin()));
    return { seqs.begin(), seqs.end() };
}

// Galvatron puts the model name into file names; keep it to characters every file system takes.
std::string fileNamePart(const std::string& name)
{
    std::string part;
    for (char c : name) {
        const bool safe
            = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        part += safe ? c : '-';
    }
    return part.empty() ? "custom" : part;
}

std::string text(const nlohmann::ordered_json& json)
{
    return jsonText(json, 4, "a synthesized profile") + "\n"; // Galvatron writes json.dump(..., indent=4)
}

// A calibrated cluster's GEMM and memory efficiencies replace the datasheet-typical figures the
// computation profile is made from: the GEMM curve at the layer's smallest GEMM side (hidden or
// FFN width; the token count is larger) and the measured fraction of HBM bandwidth.
hardware::GpuDescription computationGpu(const model::ModelDescription& model, const hardware::ClusterDescription& cluster)
{
    hardware::GpuDescription gpu = cluster.gpu;
    if (!cluster.efficiency)
        return gpu;
    const hardware::Efficiency& e = *cluster.efficiency;
    const double side = std::min(model.hidden_size, model.ffn_hidden_size);
    gpu.matmul_efficiency = e.gemm_half_dim > 0 ? e.gemm * side / (side + e.gemm_half_dim) : e.gemm;
    gpu.hbm_gb_per_s *= e.hbm;
    return gpu;
}

} // namespace

std::vector<ProfileFile> synthesizeProfiles(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const SynthesisOptions& options)
{
    model.validate();
    cluster.validate();
    const std::string& precision = options.precision;
    if (precision != "bf16" && precision != "fp16" && precision != "fp32")
        throw Error("profile synth: precision must be bf16, fp16 or fp32, found '" + precision + "'");
    if (options.max_profiled_bsz < 8)
        throw Error("profile synth: Galvatron's batch time mode fits over at least 8 batch sizes, found a sweep up to "
            + std::to_string(options.max_profiled_bsz));
    const std::vector<int> seqs = profiledSequenceLengths(model, options);

    const std::string modelPart = fileNamePart(model.name);
    const nlohmann::ordered_json synthesis = { { "estimated", true }, { "generator", "stratex profile synth" },
        { "note",
            "Computed from the model's shape and the GPU's datasheet figures, not measured: good for exploring "
            "strategies, to be replaced by Galvatron profiler output before planning a real run." },
        { "precision", precision }, { "seq_lengths", seqs }, { "model", model::toJson(model) },
        { "cluster", toJson(cluster) } };

    return {
        { "computation_profiling_" + precision + "_" + modelPart + "_all.json",
            text(synthesizeComputationProfile(
                model, computationGpu(model, cluster), precision, seqs, options.max_profiled_bsz)) },
        { "memory_profiling_" + precision + "_" + modelPart + "_all.json",
            text(synthesizeMemoryProfile(model, cluster, precision, seqs)) },
        { allreduceFileName(cluster.num_nodes, cluster.gpus_per_node), text(synthesizeAllreduceProfile(cluster)) },
        { p2pFileName(cluster.num_nodes, cluster.gpus_per_node), text(synthesizeP2pProfile(cluster)) },
        { kOverlapFileName, text({ { "overlap_coe", cluster.gpu.overlap_slowdown } }) },
        { spTimeFileName(cluster.num_nodes, cluster.gpus_per_node), text(synthesizeSpTimeProfile(cluster)) },
        { kSynthesisFileName, text(synthesis) },
    };
}

void writeProfileFiles(const std::filesystem::path& dir, const std::vector<ProfileFile>& files)
{
    std::vector<FileToWrite> set;
    for (const ProfileFile& file : files)
        set.push_back({ file.name, file.content });
    writeFilesAtomically(dir, set);
}

} // namespace stratex::profile::synth
