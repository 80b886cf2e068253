// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>

#include "core/galvatron/cost_model.h"
#include "core/profile/profile_discovery.h"
#include "core/profile/profile_set.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting.h"

namespace stratex::profile::synth {
struct SynthesisRecord;
}

namespace stratex::galvatron {

// The loaded profiles a search reads: the model's computation and memory profiles and the
// cluster's hardware profiles (all-reduce, p2p, overlap, TP/SP collective latencies).
struct SearchInputs {
    profile::ProfileSet profiles;
    // The profiles were synthesized (stratex_synthesis.json beside them), not measured.
    bool estimated = false;
    // The record of a synthesized set: the model and the cluster it was made for.
    std::shared_ptr<const profile::synth::SynthesisRecord> synthesis;

    static SearchInputs load(const profile::ProfilePaths& paths);
    // Discovery with the settings' cluster shape, precision, sequence length and profile modes.
    static SearchInputs discover(profile::ProfileDiscovery request, const SearchSettings& settings);
};

// The profiles a user pointed at, with the settings filled in from them where the user left a
// setting open (`given` holds the flags the user set): a synthesized set (stratex_synthesis.json
// in the profiles dir) gives what adoptSynthesizedSettings says; otherwise the sequence length
// becomes the memory profile's when every candidate memory file holds exactly one (else the
// settings' own). The model name becomes the profile's. The CLI's `search`/`evaluate`/`export`
// and the GUI's Search page load through this call.
SearchInputs loadSearchInputs(
    const profile::ProfileDiscovery& request, SearchSettings& settings, const settings::SettingNames& given);

// The one rule for a synthesized profile set's record: every setting of the table marked
// fromProfiles (model shape, sequence length, cluster shape, precision) that is not in `given`
// takes the record's value. The GUI applies it when a synthesized folder is chosen.
void adoptSynthesizedSettings(
    const profile::synth::SynthesisRecord& record, SearchSettings& settings, const settings::SettingNames& given);

// The one sequence length every candidate memory profile of the request holds, if there is one.
std::optional<int> inferSequenceLength(const profile::ProfileDiscovery& request, galvatron::MixedPrecision precision);

// Resolves the profiles for the settings (time/memory modes, fits, coefficient tables) into the
// cost model. Throws InputError/Error naming file and key when the profiles cannot serve them.
galvatron::CostModel buildCostModel(const SearchInputs& inputs, const SearchSettings& settings);

} // namespace stratex::galvatron
