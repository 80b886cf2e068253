// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

#include "app/cli/cli_parser.h"
#include "core/perf/stratex_request.h"
#include "core/perf/strategy_search_settings.h"
#include "core/search/model_settings.h"
#include "core/search/search_settings.h"

namespace stratex::cli {

// The stratex cost model's options (perf::strategySearchSettingTable() and --cluster FILE), shared
// by `search` and `evaluate`.
void addStratexOptions(CliParser& parser);
perf::StrategySearchSettings readStratexSettings(const CliParser& parser);

// The command line as the stratex model's inputs (perf::StratexInputs): the flags given, --cluster
// FILE read. The caller sets the base (a plan file's or a synthesized set's
// model and cluster) and, for a search, --top and --threads.
perf::StratexInputs stratexInputs(const CliParser& parser, const perf::StrategySearchSettings& stratex,
    const search::SearchSettings& settings, const settings::SettingNames& given, const search::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel);

// perf::resolveStratexTarget with its warnings printed on stderr.
perf::StratexTarget resolveStratexTarget(const perf::StratexInputs& inputs);

} // namespace stratex::cli
