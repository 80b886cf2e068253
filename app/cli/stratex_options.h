// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli_parser.h"
#include "core/model/model_description.h"
#include "core/perf/hardware_model.h"
#include "core/perf/strategy_search_settings.h"
#include "core/profile/synth/cluster_description.h"
#include "core/search/model_settings.h"
#include "core/search/search_settings.h"

namespace stratex::cli {

// The stratex cost model's options (perf::strategySearchSettingTable() and --cluster FILE), shared
// by `search` and `evaluate`.
void addStratexOptions(CliParser& parser);
perf::StrategySearchSettings readStratexSettings(const CliParser& parser);

// What the stratex model costs plans for, and how the command line decided it.
struct StratexTarget {
    model::ModelDescription model;
    profile::synth::ClusterDescription cluster;
    perf::Efficiency efficiency;
    double memory_limit_mb = 0;
};

// Where a model and a cluster may come from besides the command line: a plan file's or a
// synthesized profile set's (`label` names them in messages).
struct StratexBase {
    std::optional<model::ModelDescription> model;
    std::optional<profile::synth::ClusterDescription> cluster;
    std::string label;
};

// The one rule for the stratex model's inputs:
// - the model: search::resolveModel over the base's (--model and the shape flags win);
// - the cluster: --cluster FILE, else the base's, else --gpu PRESET; --num-nodes and
//   --num-gpus-per-node override it when given (else one node of 8 GPUs without a base);
// - the memory limit: --memory-constraint when given, else the GPU's memory.
// Throws stratex::Error naming what is missing; prints warnings for contradicting flags.
StratexTarget resolveStratexTarget(const CliParser& parser, const perf::StrategySearchSettings& stratex,
    const search::SearchSettings& settings, const settings::SettingNames& given, const search::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel, const StratexBase& base);

// Galvatron-only flags the command line gives, which the stratex model does not read.
std::vector<std::string> galvatronOnlyFlags(const settings::SettingNames& given);

} // namespace stratex::cli
