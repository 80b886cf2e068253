// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/profile/hardware_profile.h"
#include "core/profile/least_squares.h"
#include "core/profile/sp_time_profile.h"

namespace stratex::profile {

// Galvatron's all-reduce "communication coefficients" in ms per MB (= 1 / bus bandwidth), keyed
// as its cost model keys them (docs/galvatron-search.md §1.5): "W", "W_0", "W_1" for the
// full world (all the consecutive value), "g_0" (strided) and "g_1" (consecutive) for
// g = W/2 ... 2, and "1", "1_0", "1_1" = 0.
struct AllreduceCoefficients {
    std::string file;
    std::map<std::string, double, std::less<>> ms_per_mb;

    std::optional<double> find(std::string_view key) const;
    double at(std::string_view key) const; // throws stratex::Error naming the key

    // Throws InputError naming the missing "allreduce_size_..." key.
    static AllreduceCoefficients resolve(const AllreduceProfile& profile, int world);
};

// 1 / p2p bandwidth (ms per MB) by pipeline degree.
struct P2pCoefficients {
    std::string file;
    std::map<int, double> ms_per_mb;

    double at(int pipelineDegree) const; // InputError naming "pp_size_{p}" when missing
    static P2pCoefficients resolve(const P2pProfile& profile);
};

// Latency (ms) of one collective on one group size as a function of the message size (MB): the
// measured point when the size was measured exactly, else the fitted line.
struct LatencyTable {
    std::map<int, double> ms_by_mb;
    LinearFit fit;

    double lookup(double messageMb) const;
};

// The tables the TP/SP cost uses: "allgather" = all-reduce time x 0.5 (one all-gather or
// reduce-scatter), used for Megatron TP; all-to-all for Ulysses SP.
struct CollectiveTables {
    std::string file;
    std::map<int, LatencyTable> allgather;
    std::map<int, LatencyTable> all2all;

    // InputError naming the "allreduce_size_{g}_..." / "all2all_size_{g}_..." rows when missing.
    const LatencyTable& allgatherFor(int groupSize) const;
    const LatencyTable& all2allFor(int groupSize) const;

    // Every group needs >= 8 message sizes for its fit (InputError otherwise).
    static CollectiveTables resolve(const SpTimeProfile& profile);
};

} // namespace stratex::profile
