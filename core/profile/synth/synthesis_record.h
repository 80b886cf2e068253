// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/hardware/cluster_description.h"
#include "core/model/model_presets.h"

namespace stratex::profile::synth {

// What `stratex_synthesis.json` says about the profile set beside it: that it is estimated, and
// the model it was made for, so a search on it needs no model flags.
struct SynthesisRecord {
    std::filesystem::path file;
    model::ModelDescription model;
    std::string precision;
    hardware::ClusterDescription cluster; // its GPU's memory is the search's memory per GPU unless given
};

// The record in `dir`, if the directory holds one. Throws InputError naming the key when the
// file exists but is malformed.
std::optional<SynthesisRecord> readSynthesisRecord(const std::filesystem::path& dir);

} // namespace stratex::profile::synth
