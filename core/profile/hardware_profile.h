// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/common/json_reader.h"

namespace stratex::profile {

// Bus bandwidths of all-reduce groups of one size (MB/ms, ~GB/s).
struct AllreduceBandwidth {
    std::optional<double> consecutive; // "allreduce_size_{g}_consec_1": ranks [0,1,2,3]
    std::optional<double> strided; // "allreduce_size_{g}_consec_0": ranks [0,2,4,6]
    std::optional<double> unspecified; // PaddleNLP port: "allreduce_size_{g}"
};

// allreduce_bandwidth_{N}nodes_{G}gpus_per_node.json.
struct AllreduceProfile {
    std::string file;
    std::map<int, AllreduceBandwidth> byGroupSize;

    static AllreduceProfile load(const std::filesystem::path& path);
    static AllreduceProfile fromJson(const JsonView& root);
};

// p2p_bandwidth_{N}nodes_{G}gpus_per_node.json: "pp_size_{p}" -> MB/ms.
struct P2pProfile {
    std::string file;
    std::map<int, double> bandwidthByPipelineDegree;

    static P2pProfile load(const std::filesystem::path& path);
    static P2pProfile fromJson(const JsonView& root);
};

// overlap_coefficient.json: {"overlap_coe": slowdown >= 1 of overlapped compute and communication}.
struct OverlapProfile {
    std::string file;
    double overlap_coe = 1;

    static OverlapProfile load(const std::filesystem::path& path);
    static OverlapProfile fromJson(const JsonView& root);
};

} // namespace stratex::profile
