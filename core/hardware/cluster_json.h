// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/json_reader.h"
#include "core/hardware/cluster_description.h"

namespace stratex::hardware {

// The cluster as synthesized sets and strategy files carry it: node count, GPUs per node and
// every GPU figure by name.
nlohmann::ordered_json toJson(const ClusterDescription& cluster);

// Reads a cluster object. Its "gpu" is either a preset name ("h100-80gb") or an object; an object
// with "preset" takes the preset's figures as defaults for the keys it leaves out, one without
// needs every figure. Checks the figures (GpuDescription::validate) but not Galvatron's
// power-of-two shape rule, which only the Galvatron-format writers need.
// An optional "efficiency" object (calibrated cost-model parameters, every key of
// efficiencyFields(), units in the names) is read into `efficiency`; a missing, unknown or
// out-of-range key is an error naming it.
ClusterDescription readCluster(const JsonView& object);

// A cluster file: a cluster object at the top (what `stratex-cli calibrate` writes), or any file
// that carries one under "cluster" (a strategy file, a synthesis record). Errors name file and key.
ClusterDescription readClusterFile(const std::filesystem::path& file);

nlohmann::ordered_json toJson(const Efficiency& efficiency);
Efficiency readEfficiency(const JsonView& object);

} // namespace stratex::hardware
