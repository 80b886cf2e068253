// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/profile_discovery.h"

#include <algorithm>
#include <functional>
#include <system_error>
#include <vector>

#include "core/common/error.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace fs = std::filesystem;

namespace {

std::string cluster(int nodes, int gpus)
{
    return std::to_string(nodes) + "nodes_" + std::to_string(gpus) + "gpus_per_node.json";
}

// Every entry whose name fits, whatever it is: a directory or a device by a profile's name is
// chosen like a file, and reading it names it ("...: expected a regular file, found a directory")
// instead of "found none".
std::vector<fs::path> listJson(const fs::path& dir, std::string_view prefix)
{
    std::vector<fs::path> files;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (startsWith(name, prefix) && name.size() > 5 && name.substr(name.size() - 5) == ".json")
            files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string names(const std::vector<fs::path>& files)
{
    std::string text;
    for (const fs::path& file : files)
        text += (text.empty() ? "" : ", ") + file.filename().string();
    return text.empty() ? "none" : text;
}

void requireDirectory(const fs::path& dir, const char* what)
{
    std::error_code error;
    if (!fs::is_directory(dir, error))
        throw Error(std::string(what) + " directory " + dir.string() + " does not exist or is not a directory");
}

// First line of an exception message, for lists of rejected candidates.
template <typename Load> std::string whyUnusable(Load load)
{
    try {
        load();
        return {};
    } catch (const Error& error) {
        return error.what();
    }
}

fs::path chooseModelFile(const fs::path& dir, const std::string& kind, const ProfileDiscovery& request,
    const std::string& preferredModel, const std::function<void(const fs::path&)>& tryUse)
{
    std::vector<fs::path> all = listJson(dir, kind + "_profiling_");
    std::vector<fs::path> candidates;
    for (const fs::path& file : all) {
        if (contains(file.filename().string(), "_" + request.precision + "_"))
            candidates.push_back(file);
    }
    if (candidates.empty())
        throw Error("no " + kind + "_profiling_" + request.precision + "_*.json in " + dir.string() + " (found "
            + names(all) + ")");
    const std::string wanted = preferredModel;
    if (!wanted.empty()) {
        std::vector<fs::path> named;
        for (const fs::path& file : candidates) {
            if (modelNameFromProfileFile(file) == wanted)
                named.push_back(file);
        }
        if (named.size() == 1)
            return named.front();
        if (named.empty() && !request.modelName.empty())
            throw Error("no " + kind + " profile for model \"" + wanted + "\" in " + dir.string() + " (found "
                + names(candidates) + ")");
        if (!named.empty())
            candidates = named;
    }
    if (candidates.size() == 1)
        return candidates.front();
    std::vector<fs::path> usable;
    std::string reasons;
    for (const fs::path& file : candidates) {
        const std::string why = whyUnusable([&] { tryUse(file); });
        if (why.empty())
            usable.push_back(file);
        else
            reasons += (reasons.empty() ? " " : "; ") + file.filename().string() + ": " + why;
    }
    if (usable.size() == 1)
        return usable.front();
    if (usable.empty())
        throw Error("none of the " + kind + " profiles in " + dir.string() + " can serve these settings (pass "
            + "--seq-length / --model-name, or the file itself):" + reasons);
    throw Error("several " + kind + " profiles in " + dir.string() + " fit (" + names(usable)
        + "); choose one with --model-name or --" + kind + " FILE");
}

fs::path findHardwareFile(const std::vector<fs::path>& dirs, const std::string& name, const std::string& prefix)
{
    std::error_code error;
    for (const fs::path& dir : dirs) {
        // Any kind of file: reading one that is not regular says what it is.
        if (fs::exists(dir / name, error))
            return dir / name;
    }
    std::vector<fs::path> seen;
    for (const fs::path& dir : dirs) {
        for (const fs::path& file : listJson(dir, prefix))
            seen.push_back(file);
    }
    std::string where;
    for (const fs::path& dir : dirs)
        where += (where.empty() ? "" : " or ") + dir.string();
    throw Error("no " + name + " in " + where + " (found " + names(seen) + ")");
}

} // namespace

std::string allreduceFileName(int numNodes, int gpusPerNode)
{
    return "allreduce_bandwidth_" + cluster(numNodes, gpusPerNode);
}

std::string p2pFileName(int numNodes, int gpusPerNode)
{
    return "p2p_bandwidth_" + cluster(numNodes, gpusPerNode);
}

std::string spTimeFileName(int numNodes, int gpusPerNode)
{
    return "sp_time_" + cluster(numNodes, gpusPerNode);
}

ProfilePaths discoverProfiles(const ProfileDiscovery& request)
{
    ProfilePaths paths = request.given;
    const bool needModel = paths.computation.empty() || paths.memory.empty();
    const bool needHardware
        = paths.allreduce.empty() || paths.p2p.empty() || paths.overlap.empty() || paths.spTime.empty();
    if (needModel) {
        if (request.profilesDir.empty())
            throw Error("no profiles: give --profiles DIR or --computation FILE and --memory FILE");
        requireDirectory(request.profilesDir, "profiles");
    }
    if (paths.computation.empty()) {
        paths.computation = chooseModelFile(
            request.profilesDir, "computation", request, request.modelName, [&](const fs::path& file) {
                resolveTimeModels(ComputationProfile::load(file), request.timeMode, request.seqLength);
            });
    }
    if (paths.memory.empty()) {
        const std::string model
            = request.modelName.empty() ? modelNameFromProfileFile(paths.computation) : request.modelName;
        paths.memory = chooseModelFile(request.profilesDir, "memory", request, model, [&](const fs::path& file) {
            resolveMemoryModels(
                MemoryProfile::load(file), request.memoryMode, request.seqLength, request.sequenceParallel);
        });
    }
    if (!needHardware)
        return paths;

    std::vector<fs::path> dirs;
    if (!request.hardwareDir.empty()) {
        requireDirectory(request.hardwareDir, "hardware");
        dirs.push_back(request.hardwareDir);
    } else if (!request.profilesDir.empty()) {
        dirs.push_back(request.profilesDir);
        const fs::path galvatronLayout = request.profilesDir / ".." / ".." / "profile_hardware" / "hardware_configs";
        std::error_code error;
        if (fs::is_directory(galvatronLayout, error))
            dirs.push_back(galvatronLayout.lexically_normal());
    } else {
        throw Error("no hardware profiles: give --hardware DIR or --allreduce, --p2p, --overlap and --sp-time");
    }
    const int n = request.numNodes;
    const int g = request.gpusPerNode;
    if (paths.allreduce.empty())
        paths.allreduce = findHardwareFile(dirs, allreduceFileName(n, g), "allreduce_bandwidth_");
    if (paths.p2p.empty())
        paths.p2p = findHardwareFile(dirs, p2pFileName(n, g), "p2p_bandwidth_");
    if (paths.overlap.empty())
        paths.overlap = findHardwareFile(dirs, kOverlapFileName, "overlap_coefficient");
    if (paths.spTime.empty())
        paths.spTime = findHardwareFile(dirs, spTimeFileName(n, g), "sp_time_");
    return paths;
}

} // namespace stratex::profile
