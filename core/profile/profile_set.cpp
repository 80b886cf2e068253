// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/profile_set.h"

#include "core/profile/profile_key.h"

namespace stratex::profile {

std::string modelNameFromProfileFile(const std::filesystem::path& path)
{
    std::string name = path.stem().string();
    for (std::string_view prefix : { "computation_profiling_", "memory_profiling_" }) {
        if (startsWith(name, prefix)) {
            name = name.substr(prefix.size());
            break;
        }
    }
    for (std::string_view precision : { "bf16_", "fp16_", "fp32_" }) {
        if (startsWith(name, precision)) {
            name = name.substr(precision.size());
            break;
        }
    }
    const std::string_view suffix = "_all";
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
        name.resize(name.size() - suffix.size());
    return name;
}

ProfileSet ProfileSet::load(const ProfilePaths& paths)
{
    ProfileSet set;
    set.paths = paths;
    set.model.computation = ComputationProfile::load(paths.computation);
    set.model.memory = MemoryProfile::load(paths.memory);
    set.hardware.allreduce = AllreduceProfile::load(paths.allreduce);
    set.hardware.p2p = P2pProfile::load(paths.p2p);
    set.hardware.overlap = OverlapProfile::load(paths.overlap);
    set.hardware.spTime = SpTimeProfile::load(paths.spTime);
    set.modelName = modelNameFromProfileFile(paths.computation);
    return set;
}

} // namespace stratex::profile
