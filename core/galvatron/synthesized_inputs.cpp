// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/synthesized_inputs.h"

#include "core/common/json_reader.h"
#include "core/profile/profile_key.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/synthesis_record.h"

namespace stratex::galvatron {

SearchInputs synthesizedInputs(const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    galvatron::MixedPrecision precision)
{
    profile::synth::SynthesisOptions options;
    options.precision = std::string(galvatron::mixedPrecisionName(precision));
    SearchInputs inputs;
    inputs.estimated = true;
    inputs.synthesis = std::make_shared<const profile::synth::SynthesisRecord>(
        profile::synth::SynthesisRecord { {}, model, options.precision, cluster });
    const auto parse = [](const profile::synth::ProfileFile& file) {
        return JsonDocument::parse(file.content, "(synthesized) " + file.name);
    };
    const auto starts
        = [](const std::string& name, std::string_view prefix) { return profile::startsWith(name, prefix); };
    for (const profile::synth::ProfileFile& file : profile::synth::synthesizeProfiles(model, cluster, options)) {
        if (starts(file.name, "computation_profiling_")) {
            inputs.profiles.model.computation = profile::ComputationProfile::fromJson(parse(file).root());
            inputs.profiles.paths.computation = file.name;
            inputs.profiles.modelName = profile::modelNameFromProfileFile(file.name);
        } else if (starts(file.name, "memory_profiling_")) {
            inputs.profiles.model.memory = profile::MemoryProfile::fromJson(parse(file).root());
            inputs.profiles.paths.memory = file.name;
        } else if (starts(file.name, "allreduce_bandwidth_")) {
            inputs.profiles.hardware.allreduce = profile::AllreduceProfile::fromJson(parse(file).root());
            inputs.profiles.paths.allreduce = file.name;
        } else if (starts(file.name, "p2p_bandwidth_")) {
            inputs.profiles.hardware.p2p = profile::P2pProfile::fromJson(parse(file).root());
            inputs.profiles.paths.p2p = file.name;
        } else if (starts(file.name, "overlap_coefficient")) {
            inputs.profiles.hardware.overlap = profile::OverlapProfile::fromJson(parse(file).root());
            inputs.profiles.paths.overlap = file.name;
        } else if (starts(file.name, "sp_time_")) {
            inputs.profiles.hardware.spTime = profile::SpTimeProfile::fromJson(parse(file).root());
            inputs.profiles.paths.spTime = file.name;
        }
    }
    return inputs;
}

} // namespace stratex::galvatron
