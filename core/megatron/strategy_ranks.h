// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/megatron/parallel_strategy.h"
#include "core/ranks/parallel_config.h"

namespace stratex::megatron {

// The Megatron rank layout of a strategy (rank order `order`, tp-cp-ep-dp-pp by default). Without
// expert parallelism the expert TP is left at Megatron's default (the dense TP): a dense model has
// no expert grid of its own. Shared by the Ranks view of a plan and the stage of each traced rank.
ranks::ParallelConfig rankConfig(
    const ParallelStrategy& strategy, int gpusPerNode, const std::string& order = ranks::kDefaultOrder);

} // namespace stratex::megatron
