// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/common/json_reader.h"
#include "core/search/plan.h"
#include "core/search/search_settings.h"

namespace stratex::search {

// A Galvatron strategy JSON as written by any version (galvatron-formats-and-search.md §3.1):
// 3.0 with world_size, v2.x without it, v2.0 without use_sp / vtp / vsp, files whose runtime
// reads vocab_sdp instead of embed_sdp. Per-layer values are comma-separated strings.
struct StrategyFile {
    std::string file;
    int pp_deg = 1;
    std::vector<int> tp_sizes; // per layer: TP or Ulysses SP degree
    std::vector<int> tp_consecutive; // not used by the cost model (main always writes 1)
    std::vector<int> dp_types; // per layer: 1 = ZeRO-3, 0 = default_dp_type
    std::vector<int> use_sp; // per layer: 1 = Ulysses SP instead of TP
    std::vector<int> checkpoint;
    std::optional<int> world_size;
    int global_bsz = 0;
    int chunks = 1;
    std::vector<int> pp_division; // empty: even split
    std::optional<cost::PipelineType> pipeline_type;
    std::optional<cost::DpType> default_dp_type;
    int vtp = 1;
    int vsp = 0;
    int embed_sdp = 0;

    int layers() const { return int(tp_sizes.size()); }

    static StrategyFile load(const std::filesystem::path& path);
    static StrategyFile fromJson(const JsonView& root);
};

// The plan a strategy file describes, on the settings' world size and model (every inconsistency
// is an InputError naming the file and key: layer counts, degrees that do not divide the world, a
// division that does not sum to the layers, a world_size other than the cluster's). Missing
// pipeline_type / default_dp_type come from the settings. Costs are not filled in: see evaluate().
Plan planFromStrategyFile(const StrategyFile& strategy, const SearchSettings& settings);

} // namespace stratex::search
