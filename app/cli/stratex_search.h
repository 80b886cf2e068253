// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/cli/cli_parser.h"
#include "app/cli/stratex_options.h"
#include "core/perf/strategy_search_settings.h"

namespace stratex::cli {

// `search --cost-model stratex`: the search over Megatron's space for `target`, printed as text
// or JSON; --out writes the best plan as a stratex plan file. Returns the exit code.
int runStratexSearch(const CliParser& parser, const perf::StrategySearchSettings& stratex,
    const StratexTarget& target, int globalBatchSize);

} // namespace stratex::cli
