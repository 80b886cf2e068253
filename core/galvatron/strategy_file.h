// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/common/json_reader.h"
#include "core/model/model_description.h"
#include "core/hardware/cluster_description.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting.h"

namespace stratex::galvatron {

// A Galvatron strategy JSON as written by any version (docs/galvatron-search.md §9.2):
// 3.0 with world_size, v2.x without it, v2.0 without use_sp / vtp / vsp, files whose runtime
// reads vocab_sdp instead of embed_sdp. Per-layer values are comma-separated strings.
// Stratex's own strategy files add, beside Galvatron's keys (which Galvatron's loaders pick by
// name, ignoring the rest): "model" (model::toJson), "cluster" (hardware::toJson, when the GPU is
// known) and "search_settings" (the search table's JSON of the settings the plan was made with).
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
    std::optional<galvatron::PipelineType> pipeline_type;
    std::optional<galvatron::DpType> default_dp_type;
    int vtp = 1;
    int vsp = 0;
    int embed_sdp = 0;

    std::optional<model::ModelDescription> model;
    std::optional<hardware::ClusterDescription> cluster;
    std::optional<SearchSettings> search_settings;
    settings::SettingNames search_settings_keys; // the flags of the settings the file names

    int layers() const { return int(tp_sizes.size()); }

    static StrategyFile load(const std::filesystem::path& path);
    static StrategyFile fromJson(const JsonView& root);
};

// Whether the file is a strategy JSON, by its keys: an object with Galvatron's pp_deg and
// tp_sizes_enc. False for anything else, unreadable or malformed files included (opening the file
// reports what is wrong with it).
bool isStrategyFile(const std::filesystem::path& path);

// The plan a strategy file describes, on the settings' world size and model (every inconsistency
// is an InputError naming the file and key: layer counts, degrees that do not divide the world, a
// division that does not sum to the layers, a world_size other than the cluster's). Missing
// pipeline_type / default_dp_type come from the settings. Costs are not filled in: see evaluate().
Plan planFromStrategyFile(const StrategyFile& strategy, const SearchSettings& settings);

// What exporting or costing a strategy file runs with.
struct StrategyRun {
    SearchSettings settings;
    ResolvedModel model;
    std::optional<hardware::ClusterDescription> cluster; // the cluster with its GPU, when known
    std::vector<std::string> warnings; // given flags that contradict the file
    // The settings the command line or the file decided (the others may come from profiles).
    settings::SettingNames settled;
};

// The one rule for the settings, model and cluster of a strategy file:
// 1. a setting given on the command line (`given`) wins; the file's search_settings give the others,
//    and a given flag that contradicts the file's value is a warning;
// 2. the file's cluster gives --num-nodes, --num-gpus-per-node and, from its GPU, --memory-constraint
//    where neither the command line nor the file's settings do (contradictions warned);
// 3. a file that says neither (Galvatron's own) gives its world_size: --num-nodes becomes
//    world_size / --num-gpus-per-node, or one node of world_size GPUs when fewer than a node;
// 4. the model is resolveModel's with the file's "model" as the base ("<file>'s model"); the layer
//    count is always known (the file's), the sequence length when the file's settings name it. A
//    complete model sets the search's shape settings the command line does not give.
StrategyRun resolveStrategyRun(const StrategyFile& file, const SearchSettings& flags,
    const settings::SettingNames& given, const ModelSettings& modelFlags, const settings::SettingNames& givenModel);

} // namespace stratex::galvatron
