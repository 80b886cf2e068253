// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/comm_model.h"

#include <vector>

#include "core/common/error.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace {

std::vector<int> groupSizes(const std::map<int, LatencyTable>& tables)
{
    std::vector<int> sizes;
    for (const auto& [g, table] : tables)
        sizes.push_back(g);
    return sizes;
}

LatencyTable buildTable(
    const SpTimeProfile& profile, const std::string& collective, int group, const LatencyPoints& points, double factor)
{
    LatencyTable table;
    // Galvatron keeps the rows in a dict: a repeated size keeps its first position and last value.
    std::vector<double> x;
    std::vector<double> y;
    for (const auto& [megabytes, ms] : points) {
        const double value = ms * factor;
        table.ms_by_mb[megabytes] = value;
        std::size_t i = 0;
        while (i < x.size() && x[i] != megabytes)
            ++i;
        if (i == x.size()) {
            x.push_back(megabytes);
            y.push_back(value);
        } else {
            y[i] = value;
        }
    }
    const LinearFitResult fit = fitLine(x, y);
    if (x.size() < 8 || !fit.ok)
        throw InputError(profile.file, "/" + collective + "_size_" + std::to_string(group) + "_*MB_time",
            "at least 8 different message sizes per group (Galvatron fits a line through them)",
            std::to_string(x.size()) + " sizes");
    table.fit = fit.fit;
    return table;
}

} // namespace

std::optional<double> AllreduceCoefficients::find(std::string_view key) const
{
    const auto it = ms_per_mb.find(key);
    if (it == ms_per_mb.end())
        return std::nullopt;
    return it->second;
}

double AllreduceCoefficients::at(std::string_view key) const
{
    if (const auto value = find(key))
        return *value;
    throw Error(file + ": no all-reduce coefficient \"" + std::string(key)
        + "\" (a group size the strategy needs is not in the file or not a power of two)");
}

AllreduceCoefficients AllreduceCoefficients::resolve(const AllreduceProfile& profile, int world)
{
    AllreduceCoefficients coefficients;
    coefficients.file = profile.file;
    const auto bandwidth = [&](int group, bool consecutive) {
        const auto it = profile.byGroupSize.find(group);
        if (it != profile.byGroupSize.end()) {
            const AllreduceBandwidth& b = it->second;
            if (consecutive && b.consecutive)
                return *b.consecutive;
            if (!consecutive && b.strided)
                return *b.strided;
            if (b.unspecified)
                return *b.unspecified;
        }
        const std::string key = "allreduce_size_" + std::to_string(group) + "_consec_" + (consecutive ? "1" : "0");
        throw InputError(profile.file, "/" + key,
            "key \"" + key + "\" (or the PaddleNLP spelling \"allreduce_size_" + std::to_string(group) + "\"): bus "
                + "bandwidth of " + (consecutive ? "consecutive" : "strided") + " groups of " + std::to_string(group)
                + " GPUs, needed for a world of " + std::to_string(world),
            "nothing (key missing)");
    };
    const std::string w = std::to_string(world);
    const double full = 1.0 / bandwidth(world, true);
    coefficients.ms_per_mb[w] = full;
    coefficients.ms_per_mb[w + "_1"] = full;
    coefficients.ms_per_mb[w + "_0"] = full;
    for (int g = world / 2; g >= 2; g /= 2) {
        const std::string key = std::to_string(g);
        coefficients.ms_per_mb[key + "_0"] = 1.0 / bandwidth(g, false);
        coefficients.ms_per_mb[key + "_1"] = 1.0 / bandwidth(g, true);
    }
    coefficients.ms_per_mb["1"] = 0;
    coefficients.ms_per_mb["1_1"] = 0;
    coefficients.ms_per_mb["1_0"] = 0;
    return coefficients;
}

double P2pCoefficients::at(int pipelineDegree) const
{
    const auto it = ms_per_mb.find(pipelineDegree);
    if (it != ms_per_mb.end())
        return it->second;
    std::vector<int> present;
    for (const auto& [p, v] : ms_per_mb)
        present.push_back(p);
    throw InputError(file, "/pp_size_" + std::to_string(pipelineDegree),
        "key \"pp_size_" + std::to_string(pipelineDegree) + "\" (p2p bandwidth for pipeline degree "
            + std::to_string(pipelineDegree) + ", a degree the search uses)",
        present.empty() ? "no pp_size keys" : "pipeline degrees " + joinNumbers(present));
}

P2pCoefficients P2pCoefficients::resolve(const P2pProfile& profile)
{
    P2pCoefficients coefficients;
    coefficients.file = profile.file;
    for (const auto& [degree, bandwidth] : profile.bandwidthByPipelineDegree)
        coefficients.ms_per_mb[degree] = 1.0 / bandwidth;
    return coefficients;
}

double LatencyTable::lookup(double messageMb) const
{
    // Galvatron compares the double size with the integer keys numerically (64.0 hits 64).
    if (messageMb >= 0 && messageMb <= 2147483647.0 && messageMb == double(int(messageMb))) {
        const auto it = ms_by_mb.find(int(messageMb));
        if (it != ms_by_mb.end())
            return it->second;
    }
    return fit.slope * messageMb + fit.intercept;
}

const LatencyTable& CollectiveTables::allgatherFor(int groupSize) const
{
    const auto it = allgather.find(groupSize);
    if (it != allgather.end())
        return it->second;
    throw InputError(file, "/allreduce_size_" + std::to_string(groupSize) + "_*MB_time",
        "all-reduce latencies for groups of " + std::to_string(groupSize) + " (Megatron TP degree "
            + std::to_string(groupSize) + " is searched)",
        allgather.empty() ? "no all-reduce rows" : "groups " + joinNumbers(groupSizes(allgather)));
}

const LatencyTable& CollectiveTables::all2allFor(int groupSize) const
{
    const auto it = all2all.find(groupSize);
    if (it != all2all.end())
        return it->second;
    throw InputError(file, "/all2all_size_" + std::to_string(groupSize) + "_*MB_time",
        "all-to-all latencies for groups of " + std::to_string(groupSize) + " (Ulysses SP degree "
            + std::to_string(groupSize) + " is searched)",
        all2all.empty() ? "no all-to-all rows" : "groups " + joinNumbers(groupSizes(all2all)));
}

CollectiveTables CollectiveTables::resolve(const SpTimeProfile& profile)
{
    CollectiveTables tables;
    tables.file = profile.file;
    for (const auto& [group, points] : profile.allreduce)
        tables.allgather[group] = buildTable(profile, "allreduce", group, points, 0.5);
    for (const auto& [group, points] : profile.all2all)
        tables.all2all[group] = buildTable(profile, "all2all", group, points, 1.0);
    return tables;
}

} // namespace stratex::profile
