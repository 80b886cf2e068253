// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>

#include "core/profile/computation_profile.h"
#include "core/profile/hardware_profile.h"
#include "core/profile/memory_profile.h"
#include "core/profile/sp_time_profile.h"

namespace stratex::profile {

// The six files a Galvatron search reads.
struct ProfilePaths {
    std::filesystem::path computation;
    std::filesystem::path memory;
    std::filesystem::path allreduce;
    std::filesystem::path p2p;
    std::filesystem::path overlap;
    std::filesystem::path spTime;
};

// What was measured on the model (computation, memory) ...
struct ModelProfiles {
    ComputationProfile computation;
    MemoryProfile memory;
};

// ... and on the cluster (collective bandwidths and latencies, overlap slowdown).
struct HardwareProfiles {
    AllreduceProfile allreduce;
    P2pProfile p2p;
    OverlapProfile overlap;
    SpTimeProfile spTime;
};

struct ProfileSet {
    ModelProfiles model;
    HardwareProfiles hardware;
    ProfilePaths paths;
    std::string modelName; // from the computation file name ("llama2-7b"), for output file names

    // Loads and validates all six files; throws InputError / Error naming the file.
    static ProfileSet load(const ProfilePaths& paths);
};

// "computation_profiling_bf16_llama2-7b_all.json" -> "llama2-7b"; "..._hidden4096_head32.json" ->
// "hidden4096_head32"; "" when the name does not follow Galvatron's pattern.
std::string modelNameFromProfileFile(const std::filesystem::path& path);

} // namespace stratex::profile
