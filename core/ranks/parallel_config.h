// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace stratex::ranks {

inline constexpr const char* kDefaultOrder = "tp-cp-ep-dp-pp";

// The parallel layout a user asks for, as Megatron-LM's initialize_model_parallel takes it.
// DP and expert-DP are derived (world / (tp·cp·pp) and world / (etp·ep·pp)).
struct ParallelConfig {
    int world = 1;
    int tp = 1;
    int pp = 1;
    int cp = 1;
    int ep = 1;
    int etp = 0; // expert tensor parallel size; 0 means "same as tp" (Megatron's default)
    std::string order = kDefaultOrder;
    int gpusPerNode = 8;

    int effectiveEtp() const { return etp > 0 ? etp : tp; }
    bool operator==(const ParallelConfig&) const = default;
};

// The product of group sizes such as tp*pp*cp, or nullopt when it does not fit in 64 bits: sizes
// a user types can be as large as int allows, and a wrapped product may be 0 or divide the world.
std::optional<std::int64_t> checkedProduct(std::initializer_list<int> factors);

// One-line description, e.g. "world 16, tp 2, pp 4, cp 1, ep 1, etp 2, order tp-cp-ep-dp-pp".
std::string describe(const ParallelConfig& config);

} // namespace stratex::ranks
