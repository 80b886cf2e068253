// SPDX-License-Identifier: GPL-3.0-or-later
// Profiles for the search benchmarks of the seed-004 models (PaddleNLP Galvatron usage: a 30B model
// at 32K and a 100B model at 128K tokens) on 64, 256 and 1024 GPUs. No such profiles exist, so they
// are made here by SCALING THE FIXTURES (documented estimates, good for timing the search, not for
// planning a real run):
// - computation: the v2.4 GPT sequence sweep (hidden 4096, 16 lengths 4K..64K at bsz 1) with every
//   per-layer time scaled by the FLOP ratio of the target layer at that length (linear part
//   2*s*params, attention 4*s^2*h) and the "other" time by the hidden-size ratio; sequence mode
//   then fits and extrapolates to 32K / 128K as seed 004 does;
// - memory: the llama2-7b profile (seq 2048, Megatron-SP keys) with parameters scaled by the
//   parameter ratio and activations / embedding by hidden- and FFN-size ratios; memory-profile-mode
//   sequence scales the activations from 2048 to the target length;
// - hardware: 8 GPUs per node; groups of <= 8 consecutive GPUs use the 1-node bandwidths, strided
//   and larger groups the 2-node (cross-node) ones; p2p uses the 2-node values; TP/SP latencies the
//   1-node table.
#pragma once

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/common/json_reader.h"
#include "core/galvatron/search_inputs.h"

namespace stratex::bench {

struct ModelSpec {
    const char* name;
    int hidden;
    int ffn;
    int layers;
    int heads;
    int kvHeads;
    int seq;
};

inline constexpr ModelSpec kModel30B { "seed004-30b", 5120, 25600, 72, 64, 8, 32768 };
inline constexpr ModelSpec kModel100B { "seed004-100b", 8192, 49152, 74, 64, 8, 131072 };

inline std::string fixturePath(const std::string& name)
{
    return std::string(STRATEX_TEST_DATA_DIR) + "/galvatron/" + name;
}

inline nlohmann::ordered_json readFixture(const std::string& name)
{
    std::ifstream in(fixturePath(name));
    return nlohmann::ordered_json::parse(in);
}

// Parameters of one transformer layer (attention with grouped KV heads, SwiGLU MLP).
inline double layerParameters(const ModelSpec& m)
{
    const double h = m.hidden;
    const double kv = h * m.kvHeads / m.heads;
    return h * h + 2 * h * kv + h * h + 3 * h * m.ffn;
}

inline galvatron::SearchInputs scaledInputs(const ModelSpec& m, int nodes)
{
    // Computation: GPT reference (hidden 4096, 4h MLP, 12 h^2 parameters per layer).
    const double refHidden = 4096;
    const double refParameters = 12 * refHidden * refHidden;
    nlohmann::ordered_json computation;
    const nlohmann::ordered_json reference = readFixture("computation_profiling_bf16_hidden4096_head32.json");
    for (const auto& [key, value] : reference.items()) {
        if (key.rfind("layertype_", 0) != 0)
            continue;
        const double s = std::stod(key.substr(key.rfind("seq") + 3));
        double scale = 0;
        if (key.rfind("layertype_0_", 0) == 0)
            scale
                = (2 * s * layerParameters(m) + 4 * s * s * m.hidden) / (2 * s * refParameters + 4 * s * s * refHidden);
        else
            scale = m.hidden / refHidden;
        computation[key] = value.get<double>() * scale;
    }

    // Memory: llama2-7b reference (hidden 4096, FFN 11008, 202M parameters per layer).
    const ModelSpec llama { "llama2-7b", 4096, 11008, 32, 32, 32, 2048 };
    const double parameterScale = layerParameters(m) / layerParameters(llama);
    const double activationScale = (4.0 * m.hidden + 2.0 * m.ffn) / (4.0 * llama.hidden + 2.0 * llama.ffn);
    const double hiddenScale = double(m.hidden) / llama.hidden;
    nlohmann::ordered_json memory = readFixture("memory_profiling_bf16_llama2-7b_all.json");
    for (auto& [key, groups] : memory.items()) {
        if (key == "layertype_0_sp") {
            for (auto& [seq, entry] : groups.items()) {
                entry["parameter_size"] = entry["parameter_size"].get<double>() * parameterScale;
                for (auto& [degree, value] : entry["tp_activation_per_bsz_dict"].items())
                    value = value.get<double>() * (degree == "checkpoint" ? hiddenScale : activationScale);
            }
        } else if (key.rfind("other_memory_", 0) == 0) {
            for (auto& [seq, entry] : groups.items()) {
                for (auto& [degree, value] : entry["model_states"].items())
                    value = value.get<double>() * hiddenScale;
                for (auto& [degree, value] : entry["activation"].items())
                    value = value.get<double>() * hiddenScale;
            }
        }
    }

    const int world = nodes * 8;
    const nlohmann::ordered_json oneNode = readFixture("allreduce_bandwidth_1nodes_8gpus_per_node.json");
    const nlohmann::ordered_json twoNodes = readFixture("allreduce_bandwidth_2nodes_8gpus_per_node.json");
    nlohmann::ordered_json allreduce;
    for (int g = world; g >= 2; g /= 2) {
        const std::string n = std::to_string(g);
        const double consecutive = g <= 8 ? oneNode.value("allreduce_size_" + n + "_consec_1", 154.203)
                                          : twoNodes["allreduce_size_16_consec_1"].get<double>();
        const double strided = g <= 8 ? twoNodes["allreduce_size_" + n + "_consec_0"].get<double>()
                                      : twoNodes["allreduce_size_8_consec_0"].get<double>();
        allreduce["allreduce_size_" + n + "_consec_1"] = consecutive;
        if (g < world)
            allreduce["allreduce_size_" + n + "_consec_0"] = strided;
    }
    const nlohmann::ordered_json p2pTwoNodes = readFixture("p2p_bandwidth_2nodes_8gpus_per_node.json");
    nlohmann::ordered_json p2p;
    for (int p = 2; p <= 64 && p <= world; p *= 2)
        p2p["pp_size_" + std::to_string(p)] = p2pTwoNodes.value("pp_size_" + std::to_string(p), 8.13177);

    galvatron::SearchInputs inputs;
    profile::ProfileSet& set = inputs.profiles;
    set.modelName = m.name;
    const auto parse = [](const nlohmann::ordered_json& json, const std::string& name) {
        return JsonDocument::parse(json.dump(), name);
    };
    set.model.computation = profile::ComputationProfile::fromJson(
        parse(computation, "scaled:computation_profiling_bf16_" + std::string(m.name) + ".json").root());
    set.model.memory = profile::MemoryProfile::fromJson(
        parse(memory, "scaled:memory_profiling_bf16_" + std::string(m.name) + ".json").root());
    set.hardware.allreduce = profile::AllreduceProfile::fromJson(parse(allreduce, "scaled:allreduce.json").root());
    set.hardware.p2p = profile::P2pProfile::fromJson(parse(p2p, "scaled:p2p.json").root());
    set.hardware.overlap = profile::OverlapProfile::load(fixturePath("overlap_coefficient.json"));
    set.hardware.spTime = profile::SpTimeProfile::load(fixturePath("sp_time_1nodes_8gpus_per_node.json"));
    return inputs;
}

inline galvatron::SearchSettings scaledSettings(const ModelSpec& m, int nodes, int gbsz)
{
    galvatron::SearchSettings s;
    s.num_nodes = nodes;
    s.num_gpus_per_node = 8;
    s.memory_constraint_gb = 95; // seed 004's memory_upper_limit
    s.model = { m.name, m.seq, m.hidden, m.layers, m.heads, 32000 };
    s.settle_bsz = gbsz;
    s.max_tp_deg = 8;
    s.max_sp_deg = 8;
    s.max_pp_deg = 16;
    s.time_profile_mode = profile::TimeProfileMode::Sequence;
    s.memory_profile_mode = profile::MemoryProfileMode::Sequence;
    return s;
}

} // namespace stratex::bench
