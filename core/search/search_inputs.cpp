// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/search/search_inputs.h"

#include <filesystem>
#include <set>

#include "core/common/error.h"
#include "core/profile/memory_profile.h"
#include "core/profile/profile_key.h"
#include "core/profile/synth/synthesis_record.h"

namespace stratex::search {

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

std::optional<int> inferSequenceLength(const profile::ProfileDiscovery& request, cost::MixedPrecision precision)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (!request.given.memory.empty()) {
        candidates.push_back(request.given.memory);
    } else if (!request.profilesDir.empty()) {
        std::error_code error;
        const std::string tag = "_" + std::string(cost::mixedPrecisionName(precision)) + "_";
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

SearchInputs loadSearchInputs(
    const profile::ProfileDiscovery& request, SearchSettings& settings, const ExplicitSettings& given)
{
    const auto synthesis = profile::synth::readSynthesisRecord(request.profilesDir);
    if (synthesis) {
        const profile::synth::ModelDescription& made = synthesis->model;
        cost::ModelShape& model = settings.model;
        model.seq_length = given.seqLength ? model.seq_length : made.seq_length;
        model.num_layers = given.numLayers ? model.num_layers : made.num_layers;
        model.hidden_size = given.hiddenSize ? model.hidden_size : made.hidden_size;
        model.num_heads = given.numHeads ? model.num_heads : made.num_heads;
        model.vocab_size = given.vocabSize ? model.vocab_size : made.vocab_size;
        settings.num_nodes = given.numNodes ? settings.num_nodes : synthesis->num_nodes;
        settings.num_gpus_per_node = given.gpusPerNode ? settings.num_gpus_per_node : synthesis->gpus_per_node;
        if (!given.mixedPrecision) {
            if (const auto precision = cost::parseMixedPrecision(synthesis->precision))
                settings.mixed_precision = *precision;
        }
    } else if (!given.seqLength) {
        if (const auto seq = inferSequenceLength(request, settings.mixed_precision))
            settings.model.seq_length = *seq;
    }
    SearchInputs inputs = SearchInputs::discover(request, settings);
    inputs.estimated = synthesis.has_value();
    if (!given.modelName && !inputs.profiles.modelName.empty())
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
    request.precision = std::string(cost::mixedPrecisionName(settings.mixed_precision));
    request.timeMode = settings.time_profile_mode;
    request.memoryMode = settings.memory_profile_mode;
    request.seqLength = settings.model.seq_length;
    request.sequenceParallel = settings.sequence_parallel;
    return load(profile::discoverProfiles(request));
}

cost::CostModel buildCostModel(const SearchInputs& inputs, const SearchSettings& settings)
{
    settings.validate();
    const std::vector<int> layerTypes = inputs.profiles.model.computation.layerTypes();
    if (layerTypes.size() != 1)
        throw InputError(inputs.profiles.model.computation.file, "/",
            "one layer type (Galvatron main searches models with one kind of transformer layer)",
            std::to_string(layerTypes.size()) + " layer types");
    return cost::CostModel(cost::resolveCostInputs(inputs.profiles, settings.time_profile_mode,
                               settings.memory_profile_mode, settings.costSettings()),
        settings.costSettings());
}

} // namespace stratex::search
