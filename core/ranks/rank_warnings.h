// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/ranks/rank_grid.h"

namespace stratex::ranks {

enum class Severity { Info, Warning };

// Something about a layout a user wants to know before launching thousands of GPUs on it.
struct LayoutWarning {
    Severity severity = Severity::Warning;
    std::string code; // stable identifier, e.g. "tp-spans-nodes"
    std::string message; // one line for people
};

// Checks a valid grid: groups whose traffic crosses the network where it should not, degenerate
// data parallelism, partly used nodes. O(world).
std::vector<LayoutWarning> layoutWarnings(const RankGrid& grid);

} // namespace stratex::ranks
