// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/memory_model.h"

#include <algorithm>
#include <limits>

#include "core/common/error.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace {

std::string seqList(const std::vector<std::string>& keys)
{
    std::string text;
    for (const std::string& key : keys)
        text += (text.empty() ? "" : ", ") + ("\"" + key + "\"");
    return text.empty() ? "none" : text;
}

template <typename Group> std::vector<std::string> seqKeys(const Group& group)
{
    std::vector<std::string> keys;
    for (const auto& [seq, entry] : group.bySeq)
        keys.push_back(seq);
    return keys;
}

// Galvatron turns all-digit keys into integers and looks up the integer sequence length.
template <typename Group> const auto& entryForSeq(const Group& group, const std::string& file, int seqLength)
{
    if (group.flat)
        return group.bySeq.front().second;
    for (const auto& [seq, entry] : group.bySeq) {
        if (parseAllDigits(seq) == seqLength)
            return entry;
    }
    throw InputError(file, "/" + group.key + "/" + std::to_string(seqLength),
        "an entry for sequence length " + std::to_string(seqLength) + " (memory-profile-mode static)",
        "entries for " + seqList(seqKeys(group)));
}

template <typename Group> std::pair<int, int> seqRange(const Group& group, const std::string& file)
{
    int lo = std::numeric_limits<int>::max();
    int hi = 0;
    for (const auto& [seq, entry] : group.bySeq) {
        if (const auto value = parseAllDigits(seq)) {
            lo = std::min(lo, *value);
            hi = std::max(hi, *value);
        }
    }
    if (group.flat || hi == 0)
        throw InputError(file, "/" + group.key, "entries keyed by sequence length (memory-profile-mode sequence)",
            "entries for " + seqList(seqKeys(group)));
    return { lo, hi };
}

template <typename Group> const auto& entryForExactSeq(const Group& group, int seq)
{
    for (const auto& [key, entry] : group.bySeq) {
        if (parseAllDigits(key) == seq)
            return entry;
    }
    return group.bySeq.front().second; // unreachable: seq comes from seqRange over these keys
}

const LayerMemoryGroup& requireLayerGroup(const MemoryProfile& profile, int layerType, bool sp)
{
    if (const LayerMemoryGroup* group = profile.findLayer(layerType, sp))
        return *group;
    const std::string key = "layertype_" + std::to_string(layerType) + (sp ? "_sp" : "");
    const LayerMemoryGroup* other = profile.findLayer(layerType, !sp);
    throw InputError(profile.file, "/" + key,
        "key \"" + key + "\""
            + (sp ? " (memory profiled with sequence parallelism, as --sequence-parallel 1 needs)"
                  : " (memory profiled without sequence parallelism, as --sequence-parallel 0 needs)"),
        other ? "only \"" + other->key + "\"" : "nothing (key missing)");
}

const OtherMemoryGroup& requireOtherGroup(const MemoryProfile& profile, OtherMemoryPart part, bool sp)
{
    if (const OtherMemoryGroup* group = profile.findOther(part, sp))
        return *group;
    const std::string key = otherMemoryKey(part, sp);
    const OtherMemoryGroup* other = profile.findOther(part, !sp);
    throw InputError(profile.file, "/" + key, "key \"" + key + "\"",
        other ? "only \"" + other->key + "\"" : "nothing (key missing)");
}

LayerMemoryModel layerModel(const std::string& file, const LayerMemoryEntry& entry)
{
    LayerMemoryModel model;
    model.file = file;
    model.path = entry.path;
    model.parameter_size_mb = entry.parameter_size_mb;
    model.activation_mb_per_sample = entry.activation_mb_per_sample;
    model.checkpoint_mb_per_sample = entry.checkpoint_mb_per_sample;
    return model;
}

OtherMemoryModel otherModel(const std::string& file, const OtherMemoryEntry& entry)
{
    return { file, entry.path, entry.model_states_mb, entry.activation_mb_per_sample };
}

double lookup(const std::map<int, double>& values, int degree, const std::string& file, const std::string& path,
    const std::string& what)
{
    const auto it = values.find(degree);
    if (it != values.end())
        return it->second;
    std::vector<int> present;
    for (const auto& [d, v] : values)
        present.push_back(d);
    throw InputError(file, path + "/" + std::to_string(degree),
        what + " for degree " + std::to_string(degree) + " (a degree the search uses)",
        present.empty() ? "no degrees" : "degrees " + joinNumbers(present));
}

} // namespace

std::string_view memoryProfileModeName(MemoryProfileMode mode)
{
    return mode == MemoryProfileMode::Sequence ? "sequence" : "static";
}

std::optional<MemoryProfileMode> parseMemoryProfileMode(std::string_view name)
{
    if (name == "static")
        return MemoryProfileMode::Static;
    if (name == "sequence")
        return MemoryProfileMode::Sequence;
    return std::nullopt;
}

double LayerMemoryModel::activation(int tpsp) const
{
    return lookup(
        activation_mb_per_sample, tpsp, file, path + "/tp_activation_per_bsz_dict", "activation MB per sample");
}

double LayerMemoryModel::checkpointActivation() const
{
    if (!checkpoint_mb_per_sample)
        throw InputError(file, path + "/tp_activation_per_bsz_dict/checkpoint",
            "the activation MB per sample of a checkpointed layer (needed unless --disable-ckpt)",
            "nothing (key missing)");
    return *checkpoint_mb_per_sample;
}

double OtherMemoryModel::modelStates(int tp) const
{
    return lookup(model_states_mb, tp, file, path + "/model_states", "embedding/LM-head model states");
}

double OtherMemoryModel::activation(int tpsp) const
{
    return lookup(activation_mb_per_sample, tpsp, file, path + "/activation", "embedding/LM-head activation");
}

MemoryModels resolveMemoryModels(
    const MemoryProfile& profile, MemoryProfileMode mode, int seqLength, bool sequenceParallel, int layerType)
{
    MemoryModels models;
    const std::string& file = profile.file;
    if (mode == MemoryProfileMode::Static) {
        const LayerMemoryGroup& layer = requireLayerGroup(profile, layerType, sequenceParallel);
        models.layer = layerModel(file, entryForSeq(layer, file, seqLength));
        models.off = otherModel(file,
            entryForSeq(requireOtherGroup(profile, OtherMemoryPart::PipelineOff, sequenceParallel), file, seqLength));
        models.first = otherModel(file,
            entryForSeq(requireOtherGroup(profile, OtherMemoryPart::FirstStage, sequenceParallel), file, seqLength));
        models.last = otherModel(file,
            entryForSeq(requireOtherGroup(profile, OtherMemoryPart::LastStage, sequenceParallel), file, seqLength));
        return models;
    }

    if (!sequenceParallel)
        throw Error("memory-profile-mode sequence reads the \"_sp\" entries of " + file
            + " and so needs --sequence-parallel 1 (as Galvatron does)");
    if (profile.layerTypes().size() != 1)
        throw InputError(file, "/", "one layer type for memory-profile-mode sequence",
            std::to_string(profile.layerTypes().size()) + " layer types");
    const LayerMemoryGroup& layer = requireLayerGroup(profile, layerType, true);
    // Not a structured binding: the lambda below captures maxSeq (clang 14, of the fuzz preset,
    // cannot capture bindings).
    const std::pair<int, int> seqs = seqRange(layer, file);
    const int minSeq = seqs.first;
    const int maxSeq = seqs.second;
    models.layer = layerModel(file, entryForExactSeq(layer, maxSeq));
    models.layer.parameter_size_mb = entryForExactSeq(layer, minSeq).parameter_size_mb;
    for (auto& [degree, value] : models.layer.activation_mb_per_sample)
        value = (value / maxSeq) * seqLength;
    if (models.layer.checkpoint_mb_per_sample)
        models.layer.checkpoint_mb_per_sample = (*models.layer.checkpoint_mb_per_sample / maxSeq) * seqLength;

    const OtherMemoryGroup& off = requireOtherGroup(profile, OtherMemoryPart::PipelineOff, true);
    const OtherMemoryGroup& first = requireOtherGroup(profile, OtherMemoryPart::FirstStage, true);
    const OtherMemoryGroup& last = requireOtherGroup(profile, OtherMemoryPart::LastStage, true);
    const auto maxEntry = [&](const OtherMemoryGroup& group) {
        for (const auto& [key, entry] : group.bySeq) {
            if (parseAllDigits(key) == maxSeq)
                return otherModel(file, entry);
        }
        throw InputError(file, "/" + group.key + "/" + std::to_string(maxSeq),
            "an entry for sequence length " + std::to_string(maxSeq)
                + " (the longest layer profile, memory-profile-mode sequence)",
            "entries for " + seqList(seqKeys(group)));
    };
    models.off = maxEntry(off);
    models.first = maxEntry(first);
    models.last = maxEntry(last);
    // Galvatron scales the three tables over the degrees of the pp-off table.
    const std::map<int, double> offActivation = models.off.activation_mb_per_sample;
    for (const auto& [degree, unused] : offActivation) {
        for (OtherMemoryModel* table : { &models.off, &models.first, &models.last }) {
            const double value = table->activation(degree);
            table->activation_mb_per_sample[degree] = (value / maxSeq) * seqLength;
        }
    }
    return models;
}

} // namespace stratex::profile
