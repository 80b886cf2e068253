// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace stratex::galvatron {

// The all-reduce coefficient key of a gradient sync over `sdp` GPUs: "{sdp}_0" (strided: the DP
// group skips over the TP ranks) when tp != 1, else "{sdp}_1" (Galvatron main, Q5).
inline std::string gradientSyncKey(int sdp, int tp)
{
    return std::to_string(sdp) + (tp != 1 ? "_0" : "_1");
}

} // namespace stratex::galvatron
