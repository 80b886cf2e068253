// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/hardware/cluster_description.h"
#include "core/model/model_description.h"
#include "core/model/model_presets.h"

namespace stratex::profile::synth {

struct SynthesisOptions {
    std::string precision = "bf16"; // bf16 | fp16 | fp32: the file names and the element size
    // Sequence lengths the files hold. Empty: the model's sequence length and 1/4, 1/2 and 3/4 of
    // it, enough for Galvatron's sequence time mode (quadratic fit) and memory mode.
    std::vector<int> seq_lengths;
    int max_profiled_bsz = 8; // batch time mode fits over bsz 1..this (Galvatron needs >= 8)
};

// One file of a synthesized profile set, named as Galvatron names it.
struct ProfileFile {
    std::string name;
    std::string content;
};

// A complete Galvatron-format profile set (computation, memory, all-reduce, p2p, overlap, sp_time)
// computed from the model's shape and the cluster's datasheet figures instead of measured on GPUs,
// plus `stratex_synthesis.json`, which records the inputs and marks the set as estimated.
// The search reads it exactly like profiler output. Deterministic: the same inputs give the same bytes.
// Throws stratex::Error with a one-line reason on invalid descriptions or options.
std::vector<ProfileFile> synthesizeProfiles(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const SynthesisOptions& options = {});

// Writes the files into `dir` (created if missing) as one set: all of them or none.
void writeProfileFiles(const std::filesystem::path& dir, const std::vector<ProfileFile>& files);

inline constexpr const char* kSynthesisFileName = "stratex_synthesis.json";

// The parts, for tests and for callers that want one file.
nlohmann::ordered_json synthesizeComputationProfile(const model::ModelDescription& model, const hardware::GpuDescription& gpu,
    const std::string& precision, const std::vector<int>& seqs, int maxBsz);
nlohmann::ordered_json synthesizeMemoryProfile(const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    const std::string& precision, const std::vector<int>& seqs);
nlohmann::ordered_json synthesizeAllreduceProfile(const hardware::ClusterDescription& cluster);
nlohmann::ordered_json synthesizeP2pProfile(const hardware::ClusterDescription& cluster);
nlohmann::ordered_json synthesizeSpTimeProfile(const hardware::ClusterDescription& cluster);

} // namespace stratex::profile::synth
