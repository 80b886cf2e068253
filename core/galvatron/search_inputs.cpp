// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/search_inputs.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/common/error.h"
#include "core/profile/memory_profile.h"
#include "core/profile/profile_key.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/galvatron/search_setting_table.h"

namespace stratex::galvatron {

namespace {

// Distinct sequence lengths of the layer entries of a memory profile.
std::set<int> profiledSequences(const std::filesystem::path& file)
{
    std::set<int> seqs;
    const profile::MemoryProfile memory = profile::MemoryProfile::load(file);
    for (const profile::LayerMemoryGroup& group : memory.layers) {
        for (const auto& [key, entry] : group.bySeq) {
            if (const auto seq = profile::parseAllDigits(key))
                seqs.insert(*seq);
        }
    }
    return seqs;
}

} // namespace

std::optional<int> inferSequenceLength(const profile::ProfileDiscovery& request, galvatron::MixedPrecision precision)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (!request.given.memory.empty()) {
        candidates.push_back(request.given.memory);
    } else if (!request.profilesDir.empty()) {
        std::error_code error;
        const std::string tag = "_" + std::string(galvatron::mixedPrecisionName(precision)) + "_";
        for (fs::directory_iterator it(request.profilesDir, error), end; !error && it != end; it.increment(error)) {
            const std::string name = it->path().filename().string();
            if (!profile::startsWith(name, "memory_profiling_") || name.find(tag) == std::string::npos)
                continue;
            if (!request.modelName.empty() && profile::modelNameFromProfileFile(it->path()) != request.modelName)
                continue;
            candidates.push_back(it->path());
        }
    }
    std::set<int> seqs;
    for (const fs::path& file : candidates) {
        try {
            const std::set<int> own = profiledSequences(file);
            if (own.size() != 1)
                return std::nullopt;
            seqs.insert(*own.begin());
        } catch (const Error&) {
            return std::nullopt; // reported properly when the profiles are loaded
        }
    }
    if (seqs.size() == 1)
        return *seqs.begin();
    return std::nullopt;
}

void adoptSynthesizedSettings(
    const profile::synth::SynthesisRecord& record, SearchSettings& settings, const settings::SettingNames& given)
{
    SearchSettings made = settings;
    const model::ModelDescription& model = record.model;
    made.model.seq_length = model.seq_length;
    made.model.num_layers = model.num_layers;
    made.model.hidden_size = model.hidden_size;
    made.model.num_heads = model.num_heads;
    made.model.vocab_size = model.vocab_size;
    made.num_nodes = record.cluster.num_nodes;
    made.num_gpus_per_node = record.cluster.gpus_per_node;
    // Whole GB, as Galvatron's memory_constraint: a 79.6 GB card plans within 79 GB.
    made.memory_constraint_gb = std::max(1, int(record.cluster.gpu.memory_gb));
    if (const auto precision = galvatron::parseMixedPrecision(record.precision))
        made.mixed_precision = *precision;
    for (const auto& row : searchSettingTable().rows()) {
        // The model name is the profile files' (below), not the record's.
        if (row.spec.fromProfiles && row.spec.kind != settings::SettingKind::Text && !given.contains(row.spec.flag))
            row.set(settings, row.get(made));
    }
}

SearchInputs loadSearchInputs(
    const profile::ProfileDiscovery& request, SearchSettings& settings, const settings::SettingNames& given)
{
    const auto synthesis = profile::synth::readSynthesisRecord(request.profilesDir);
    if (synthesis) {
        adoptSynthesizedSettings(*synthesis, settings, given);
    } else if (!given.contains("seq-length")) {
        if (const auto seq = inferSequenceLength(request, settings.mixed_precision))
            settings.model.seq_length = *seq;
    }
    SearchInputs inputs = SearchInputs::discover(request, settings);
    inputs.estimated = synthesis.has_value();
    if (synthesis)
        inputs.synthesis = std::make_shared<const profile::synth::SynthesisRecord>(*synthesis);
    if (!given.contains("model-name") && !inputs.profiles.modelName.empty())
        settings.model.name = inputs.profiles.modelName;
    return inputs;
}

SearchInputs SearchInputs::load(const profile::ProfilePaths& paths)
{
    return { profile::ProfileSet::load(paths) };
}

SearchInputs SearchInputs::discover(profile::ProfileDiscovery request, const SearchSettings& settings)
{
    request.numNodes = settings.num_nodes;
    request.gpusPerNode = settings.num_gpus_per_node;
    request.precision = std::string(galvatron::mixedPrecisionName(settings.mixed_precision));
    request.timeMode = settings.time_profile_mode;
    request.memoryMode = settings.memory_profile_mode;
    request.seqLength = settings.model.seq_length;
    request.sequenceParallel = settings.sequence_parallel;
    return load(profile::discoverProfiles(request));
}

galvatron::CostModel buildCostModel(const SearchInputs& inputs, const SearchSettings& settings)
{
    settings.validate();
    const std::vector<int> layerTypes = inputs.profiles.model.computation.layerTypes();
    if (layerTypes.size() != 1)
        throw InputError(inputs.profiles.model.computation.file, "/",
            "one layer type (Galvatron main searches models with one kind of transformer layer)",
            std::to_string(layerTypes.size()) + " layer types");
    return galvatron::CostModel(galvatron::resolveCostInputs(inputs.profiles, settings.time_profile_mode,
                               settings.memory_profile_mode, settings.costSettings()),
        settings.costSettings());
}

} // namespace stratex::galvatron
