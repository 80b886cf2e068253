// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "app/cli/cli_parser.h"
#include "core/ranks/parallel_config.h"
#include "core/ranks/rank_warnings.h"

namespace stratex::cli {

// --cp --ep --etp --order --gpus-per-node, shared by `ranks` and `trace-ranks`.
void addLayoutOptions(CliParser& parser);
// Fills cp, ep, etp, order and gpusPerNode of `config` from the parsed options.
void readLayoutOptions(const CliParser& parser, ranks::ParallelConfig& config);

// "warning: ..." lines on stderr.
void printWarnings(const std::vector<ranks::LayoutWarning>& warnings);

} // namespace stratex::cli
