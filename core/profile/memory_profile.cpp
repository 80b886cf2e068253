// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/memory_profile.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace {

// Far beyond the memory of any GPU, yet small enough that batch sizes and in-flight micro-batches
// multiplying it stay countable: a larger value is a broken profile (a unit mix-up, a corrupted
// file) and is refused here, where the file and key can still be named.
constexpr double kMaxProfileMb = limits::kMaxProfileMemoryMb;

double memoryMb(const JsonView& view, bool positive = false)
{
    const double mb = positive ? view.positiveNumber() : view.nonNegativeNumber();
    if (mb > kMaxProfileMb)
        view.fail(std::string(positive ? "a positive" : "a non-negative") + " memory size in MB of at most 1e7");
    return mb;
}

// {"1": MB, "2": MB, ...} keyed by degree; `allowCheckpoint` lets "checkpoint" through.
std::map<int, double> readDegreeMap(const JsonView& view, std::optional<double>* checkpoint = nullptr)
{
    std::map<int, double> values;
    for (const auto& [key, value] : view.members()) {
        if (checkpoint && key == "checkpoint") {
            *checkpoint = memoryMb(value);
            continue;
        }
        const auto degree = parseAllDigits(key);
        if (!degree || *degree < 1)
            throw InputError(view.file(), value.path(),
                checkpoint ? "a TP degree (\"1\", \"2\", ...) or \"checkpoint\" as key"
                           : "a TP degree (\"1\", \"2\", ...) as key",
                "key \"" + key + "\"");
        values[*degree] = memoryMb(value);
    }
    return values;
}

// v2.0 writes one scalar where later versions write a map by degree: the scalar is degree 1.
std::map<int, double> readScalarOrDegreeMap(const JsonView& view)
{
    if (view.isNumber())
        return { { 1, memoryMb(view) } };
    if (!view.isObject())
        view.fail("a number (MB) or an object keyed by TP degree");
    return readDegreeMap(view);
}

LayerMemoryEntry readLayerEntry(const JsonView& view)
{
    view.requireObject();
    LayerMemoryEntry entry;
    entry.path = view.path();
    entry.parameter_size_mb = memoryMb(view["parameter_size"], true);
    const JsonView activations = view["tp_activation_per_bsz_dict"];
    activations.requireObject();
    entry.activation_mb_per_sample = readDegreeMap(activations, &entry.checkpoint_mb_per_sample);
    return entry;
}

OtherMemoryEntry readOtherEntry(const JsonView& view)
{
    view.requireObject();
    OtherMemoryEntry entry;
    entry.path = view.path();
    entry.model_states_mb = readScalarOrDegreeMap(view["model_states"]);
    entry.activation_mb_per_sample = readScalarOrDegreeMap(view["activation"]);
    return entry;
}

// "layertype_3" / "layertype_3_sp" -> (3, sp)
std::optional<std::pair<int, bool>> parseLayerGroupKey(std::string_view key)
{
    const auto fields = splitUnderscore(key);
    if (fields.size() < 2 || fields.size() > 3 || fields[0] != "layertype")
        return std::nullopt;
    const auto type = parseAllDigits(fields[1]);
    if (!type)
        return std::nullopt;
    if (fields.size() == 3 && fields[2] != "sp")
        return std::nullopt;
    return std::make_pair(*type, fields.size() == 3);
}

std::optional<std::pair<OtherMemoryPart, bool>> parseOtherGroupKey(std::string_view key)
{
    for (bool sp : { false, true }) {
        for (OtherMemoryPart part :
            { OtherMemoryPart::PipelineOff, OtherMemoryPart::FirstStage, OtherMemoryPart::LastStage }) {
            if (key == otherMemoryKey(part, sp))
                return std::make_pair(part, sp);
        }
    }
    return std::nullopt;
}

} // namespace

std::string otherMemoryKey(OtherMemoryPart part, bool sequenceParallel)
{
    std::string key = "other_memory_pp_";
    switch (part) {
    case OtherMemoryPart::PipelineOff:
        key += "off";
        break;
    case OtherMemoryPart::FirstStage:
        key += "on_first";
        break;
    case OtherMemoryPart::LastStage:
        key += "on_last";
        break;
    }
    return sequenceParallel ? key + "_sp" : key;
}

const LayerMemoryGroup* MemoryProfile::findLayer(int layerType, bool sequenceParallel) const
{
    for (const LayerMemoryGroup& group : layers) {
        if (group.layerType == layerType && group.sequenceParallel == sequenceParallel)
            return &group;
    }
    return nullptr;
}

const OtherMemoryGroup* MemoryProfile::findOther(OtherMemoryPart part, bool sequenceParallel) const
{
    for (const OtherMemoryGroup& group : others) {
        if (group.part == part && group.sequenceParallel == sequenceParallel)
            return &group;
    }
    return nullptr;
}

std::vector<int> MemoryProfile::layerTypes() const
{
    std::vector<int> types;
    for (const LayerMemoryGroup& group : layers)
        types.push_back(group.layerType);
    std::sort(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
    return types;
}

MemoryProfile MemoryProfile::fromJson(const JsonView& root)
{
    root.requireObject();
    MemoryProfile profile;
    profile.file = root.file();
    for (const auto& [key, value] : root.members()) {
        if (const auto layerKey = parseLayerGroupKey(key)) {
            value.requireObject();
            LayerMemoryGroup group;
            group.key = key;
            group.layerType = layerKey->first;
            group.sequenceParallel = layerKey->second;
            group.flat = value.has("parameter_size");
            if (group.flat) {
                group.bySeq.emplace_back(std::string(), readLayerEntry(value));
            } else {
                for (const auto& [seq, entry] : value.members())
                    group.bySeq.emplace_back(seq, readLayerEntry(entry));
            }
            if (group.bySeq.empty())
                value.fail("an object keyed by sequence length (\"2048\": {...}) or with \"parameter_size\"");
            profile.layers.push_back(std::move(group));
        } else if (const auto otherKey = parseOtherGroupKey(key)) {
            value.requireObject();
            OtherMemoryGroup group;
            group.key = key;
            group.part = otherKey->first;
            group.sequenceParallel = otherKey->second;
            group.flat = value.has("model_states");
            if (group.flat) {
                group.bySeq.emplace_back(std::string(), readOtherEntry(value));
            } else {
                for (const auto& [seq, entry] : value.members())
                    group.bySeq.emplace_back(seq, readOtherEntry(entry));
            }
            if (group.bySeq.empty())
                value.fail("an object keyed by sequence length (\"2048\": {...}) or with \"model_states\"");
            profile.others.push_back(std::move(group));
        } else if (value.isObject()) {
            profile.rawGroups.push_back(key);
        }
    }
    if (profile.layers.empty())
        throw InputError(profile.file, "/", "processed memory keys such as \"layertype_0_sp\" or \"layertype_0\"",
            profile.rawGroups.empty() ? "none" : std::to_string(profile.rawGroups.size()) + " raw groups only");
    return profile;
}

MemoryProfile MemoryProfile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

} // namespace stratex::profile
