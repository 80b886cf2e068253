// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/common/json_reader.h"

namespace stratex::profile {

// Measured latencies of one collective on one group size: (message MB, ms) in file order.
using LatencyPoints = std::vector<std::pair<int, double>>;

// sp_time_{N}nodes_{G}gpus_per_node.json: "allreduce_size_{g}_{X}MB_time" and
// "all2all_size_{g}_{X}MB_time" in ms, for the TP (Megatron) and Ulysses SP collectives.
struct SpTimeProfile {
    std::string file;
    std::map<int, LatencyPoints> allreduce;
    std::map<int, LatencyPoints> all2all;

    static SpTimeProfile load(const std::filesystem::path& path);
    static SpTimeProfile fromJson(const JsonView& root);
};

} // namespace stratex::profile
