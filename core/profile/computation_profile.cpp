// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/computation_profile.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace {

// "layertype_3_bsz.." or "layertype_3" -> 3; "layertype_other_.." -> nullopt.
std::optional<int> layerTypeOf(std::string_view key)
{
    const auto fields = splitUnderscore(key);
    if (fields.size() < 2 || fields[0] != "layertype")
        return std::nullopt;
    return parseAllDigits(fields[1]);
}

// A processed time: ms per sample per layer. Zero would make a layer free (all-zero times gave a
// plausible plan), and beyond the limit it is a unit mistake whose sums overflow.
double layerTimeMs(const JsonView& value)
{
    const double ms = value.number();
    if (!(ms > 0) || ms > limits::kMaxLayerTimeMs)
        value.fail("a time in ms above 0 and at most 1e6");
    return ms;
}

// A raw measurement: the time of a whole run of layers.
double rawTimeMs(const JsonView& value)
{
    const double ms = value.nonNegativeNumber();
    if (ms > limits::kMaxLayerTimeMs * limits::kMaxLayers)
        value.fail("a time in ms of at most 4.096e9");
    return ms;
}

} // namespace

std::vector<int> ComputationProfile::layerTypes() const
{
    std::vector<int> types;
    for (const TimeEntry& entry : processed) {
        if (const auto type = layerTypeOf(entry.key))
            types.push_back(*type);
    }
    std::sort(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
    return types;
}

ComputationProfile ComputationProfile::fromJson(const JsonView& root)
{
    root.requireObject();
    ComputationProfile profile;
    profile.file = root.file();
    for (const auto& [key, value] : root.members()) {
        if (startsWith(key, "layertype_"))
            profile.processed.push_back({ key, layerTimeMs(value) });
        else if (startsWith(key, "layernum"))
            profile.raw.push_back({ key, rawTimeMs(value) });
        // Anything else is not read by Galvatron's search either.
    }
    if (profile.processed.empty())
        throw InputError(profile.file, "/",
            "processed time keys such as \"layertype_0_bsz8_seq2048\" (ms per sample "
            "per layer), as Galvatron's profiler writes after its raw runs",
            profile.raw.empty() ? "no time keys" : std::to_string(profile.raw.size()) + " raw \"layernum\" keys only");
    if (profile.layerTypes().empty())
        throw InputError(profile.file, "/", "at least one \"layertype_{i}_...\" key with a layer type index",
            "only \"layertype_other\" keys");
    return profile;
}

ComputationProfile ComputationProfile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

} // namespace stratex::profile
