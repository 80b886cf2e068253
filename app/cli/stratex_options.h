// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

#include "app/cli/cli_parser.h"
#include "core/megatron/stratex_request.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_settings.h"

namespace stratex::cli {

// The stratex cost model's options (megatron::strategySearchSettingTable() and --cluster FILE), shared
// by `search` and `evaluate`.
void addStratexOptions(CliParser& parser);
megatron::StrategySearchSettings readStratexSettings(const CliParser& parser);

// The command line as the stratex model's inputs (megatron::StratexInputs): the flags given, --cluster
// FILE read. The caller sets the base (a plan file's or a synthesized set's
// model and cluster) and, for a search, --top and --threads.
megatron::StratexInputs stratexInputs(const CliParser& parser, const megatron::StrategySearchSettings& stratex,
    const galvatron::SearchSettings& settings, const settings::SettingNames& given, const galvatron::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel);

// megatron::resolveStratexTarget with its warnings printed on stderr.
megatron::StratexTarget resolveStratexTarget(const megatron::StratexInputs& inputs);

} // namespace stratex::cli
