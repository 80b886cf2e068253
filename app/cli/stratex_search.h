// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/cli/cli_parser.h"
#include "core/megatron/strategy_search.h"

namespace stratex::cli {

// `search --cost-model stratex`: megatron::runStratexSearch on the resolved `request`, printed as text
// or JSON; --out writes the best plan as a stratex plan file. Returns the exit code.
int runStratexSearch(const CliParser& parser, const megatron::StrategySearchRequest& request);

} // namespace stratex::cli
