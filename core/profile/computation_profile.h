// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/json_reader.h"

namespace stratex::profile {

// One number of a computation profile, with the key it was stored under.
struct TimeEntry {
    std::string key;
    double value_ms = 0;
};

// computation_profiling_{prec}_{model}[_all].json: forward times in milliseconds, as written by
// Galvatron's model profiler (every version: v2.0 "layertype_0", v2.x/3.0 "layertype_0_bsz8_seq2048",
// "layertype_other_[0_]bsz..", multi-type T5 "layertype_1_..", "seq[512,512]"). Entries keep the
// file's order, which static time mode depends on.
struct ComputationProfile {
    std::string file;
    // layertype_* keys: ms per sample per layer (layer types) or per sample (other).
    std::vector<TimeEntry> processed;
    // layernum[...]_bsz.. keys: ms of a whole L-layer forward at a global batch.
    std::vector<TimeEntry> raw;

    // Distinct layer types i of the "layertype_{i}[_...]" keys, ascending.
    std::vector<int> layerTypes() const;

    static ComputationProfile load(const std::filesystem::path& path);
    static ComputationProfile fromJson(const JsonView& root);
};

} // namespace stratex::profile
