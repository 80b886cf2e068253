// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/chunk_placement.h"

namespace stratex::planner {

std::string_view chunkPlacementName(ChunkPlacement placement)
{
    return placement == ChunkPlacement::V ? "v" : "interleaved";
}

} // namespace stratex::planner
