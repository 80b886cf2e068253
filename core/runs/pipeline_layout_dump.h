// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Megatron's --pipeline-model-parallel-layout as a Megatron-LM argument dump prints it, read into
// a Stratex strategy's division (first / last stage layers and vpp). Internal to core/runs
// (run_arguments.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/megatron/parallel_strategy.h"

namespace stratex::runs {

// The decoder layers of every chunk of a layout string
// (megatron/core/transformer/pipeline_parallel_layer_layout.py parse_str_to_list: commas cosmetic,
// "x*n" and "(...)*n" repeat, '|' separates chunks, E embedding, t decoder layer, m MTP layer, L
// loss); nullopt when it is not of that form or unrolls beyond 1 M characters.
std::optional<std::vector<int>> layoutChunks(std::string_view text);

// The division of a layout as first / last stage counts and vpp, when `s` can hold it (its middle
// stages are the even split of what the ends leave); otherwise a note and the even division.
void readLayout(const std::string& layout, megatron::ParallelStrategy& s, int layers, std::vector<std::string>& notes);

} // namespace stratex::runs
