// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/model_description.h"
#include "core/perf/estimate.h"
#include "core/perf/parallel_strategy.h"
#include "core/profile/synth/cluster_description.h"

namespace stratex::perf {

// A Megatron-space plan as Stratex writes it (`search --cost-model stratex --output`) and reads it
// (`evaluate`, `export`, File > Open Strategy): everything needed to cost or launch it again.
//   { "format": "stratex-plan", "version": 1, "model": {...}, "cluster": {...},
//     "strategy": {...}, "prediction": {...} }
// "prediction" is what Stratex predicted when it wrote the file, for people and diffing; readers
// ignore it and cost the plan anew.
struct PlanFile {
    std::string file;
    model::ModelDescription model;
    profile::synth::ClusterDescription cluster;
    ParallelStrategy strategy;
    std::vector<std::string> assumptions; // defaults taken for strategy keys the file leaves out

    static PlanFile load(const std::filesystem::path& path);
};

inline constexpr std::string_view kPlanFileFormat = "stratex-plan";

nlohmann::ordered_json planFileJson(const model::ModelDescription& model,
    const profile::synth::ClusterDescription& cluster, const Estimate& prediction);

// Whether `path` holds a plan file (an object whose "format" is "stratex-plan"); false for anything
// unreadable or else (opening it reports what is wrong).
bool isPlanFile(const std::filesystem::path& path);

} // namespace stratex::perf
