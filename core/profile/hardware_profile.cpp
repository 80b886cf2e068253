// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/hardware_profile.h"

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

AllreduceProfile AllreduceProfile::fromJson(const JsonView& root)
{
    root.requireObject();
    AllreduceProfile profile;
    profile.file = root.file();
    for (const auto& [key, value] : root.members()) {
        const auto fields = splitUnderscore(key);
        if (fields.size() < 3 || fields[0] != "allreduce" || fields[1] != "size")
            continue;
        const auto group = parseAllDigits(fields[2]);
        if (!group || *group < 1)
            throw InputError(
                profile.file, value.path(), "a key \"allreduce_size_{group}[_consec_{0|1}]\"", "key \"" + key + "\"");
        AllreduceBandwidth& bandwidth = profile.byGroupSize[*group];
        if (fields.size() == 3)
            bandwidth.unspecified = value.positiveNumber();
        else if (fields.size() == 5 && fields[3] == "consec" && fields[4] == "1")
            bandwidth.consecutive = value.positiveNumber();
        else if (fields.size() == 5 && fields[3] == "consec" && fields[4] == "0")
            bandwidth.strided = value.positiveNumber();
        else
            throw InputError(
                profile.file, value.path(), "a key \"allreduce_size_{group}[_consec_{0|1}]\"", "key \"" + key + "\"");
    }
    if (profile.byGroupSize.empty())
        throw InputError(
            profile.file, "/", "keys \"allreduce_size_{group}_consec_{0|1}\" (bus bandwidth, MB/ms)", "none");
    return profile;
}

AllreduceProfile AllreduceProfile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

P2pProfile P2pProfile::fromJson(const JsonView& root)
{
    root.requireObject();
    P2pProfile profile;
    profile.file = root.file();
    for (const auto& [key, value] : root.members()) {
        if (key.find("pp_size_") == std::string::npos)
            continue;
        const auto fields = splitUnderscore(key);
        const auto degree = parseAllDigits(fields.back());
        if (!degree || *degree < 1)
            throw InputError(profile.file, value.path(), "a key \"pp_size_{degree}\"", "key \"" + key + "\"");
        profile.bandwidthByPipelineDegree[*degree] = value.positiveNumber();
    }
    return profile;
}

P2pProfile P2pProfile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

OverlapProfile OverlapProfile::fromJson(const JsonView& root)
{
    root.requireObject();
    OverlapProfile profile;
    profile.file = root.file();
    profile.overlap_coe = root["overlap_coe"].positiveNumber();
    return profile;
}

OverlapProfile OverlapProfile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

} // namespace stratex::profile
