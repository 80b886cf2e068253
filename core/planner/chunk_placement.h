// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string_view>

namespace stratex::planner {

// Where a device's chunks (stages) sit along the model when chunks_per_device > 1.
// Interleaved: Megatron's virtual stages, the device cycle 0..p-1 repeated (interleaved 1F1B).
// V: two chunks, devices 0..p-1 going down the model and p-1..0 coming back, so device 0 holds
// the first and the last layers (DualPipeV, ZB-V).
enum class ChunkPlacement { Interleaved, V };

std::string_view chunkPlacementName(ChunkPlacement placement); // "interleaved", "v"

} // namespace stratex::planner
