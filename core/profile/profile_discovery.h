// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>

#include "core/profile/memory_model.h"
#include "core/profile/profile_set.h"
#include "core/profile/time_model.h"

namespace stratex::profile {

// Where to look for the six profile files and what they must be usable for.
struct ProfileDiscovery {
    std::filesystem::path profilesDir; // computation_profiling_*.json, memory_profiling_*.json
    std::filesystem::path hardwareDir; // empty: the profiles dir, then Galvatron's
                                       // ../../profile_hardware/hardware_configs next to it
    int numNodes = 1;
    int gpusPerNode = 8;
    std::string precision = "bf16"; // the "_bf16_" of the model file names
    std::string modelName; // optional: "llama2-7b" picks computation_profiling_bf16_llama2-7b_all.json

    // Used to choose among several model files: a file that cannot serve these settings is skipped.
    TimeProfileMode timeMode = TimeProfileMode::Static;
    MemoryProfileMode memoryMode = MemoryProfileMode::Static;
    int seqLength = 0;
    bool sequenceParallel = true;

    ProfilePaths given; // files named one by one win over discovery
};

// Recognises files by Galvatron's names: computation_profiling_{prec}_*.json and
// memory_profiling_{prec}_*.json (several: the model name decides, then which ones the settings
// can use), allreduce_bandwidth_{N}nodes_{G}gpus_per_node.json, p2p_bandwidth_..., sp_time_...,
// overlap_coefficient.json. Throws stratex::Error listing what was found when a file is missing
// or the choice is ambiguous.
ProfilePaths discoverProfiles(const ProfileDiscovery& request);

// Hardware file names for a cluster shape.
std::string allreduceFileName(int numNodes, int gpusPerNode);
std::string p2pFileName(int numNodes, int gpusPerNode);
std::string spTimeFileName(int numNodes, int gpusPerNode);
inline constexpr const char* kOverlapFileName = "overlap_coefficient.json";

} // namespace stratex::profile
