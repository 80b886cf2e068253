// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/search/search_inputs.h"

#include "core/common/error.h"

namespace stratex::search {

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
