// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "app/cli/cli_parser.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_settings.h"
#include "core/galvatron/strategy_file.h"

namespace stratex::cli {

// Galvatron's search settings as command-line flags (a public contract: --num-nodes,
// --memory-constraint, --settle-bsz, --disable-tp, --pipeline-type, --time-profile-mode, ...),
// shared by `search`, `evaluate` and `export`.
void addSearchSettingsOptions(CliParser& parser);

// The search settings as given, unchecked (a strategy file may fill in the rest); `given` receives
// the flags set.
galvatron::SearchSettings readGivenSearchSettings(const CliParser& parser, settings::SettingNames& given);

// The model flags beyond the search's shape (--model PRESET, --ffn-hidden-size, ...), profile
// synth's flags from galvatron::modelSettingTable().
// With --hf-config FILE (addHfConfigOption), the model read from the config.json is the base, as a
// --model preset would be ("model" is among the given flags).
void addModelOptions(CliParser& parser);

// --hf-config FILE: the model of a Hugging Face config.json (core/model/hf_config.h), defined once
// for every command that takes a model (search, evaluate, export, profile synth).
void addHfConfigOption(CliParser& parser);
// The model --hf-config names, its notes printed as warnings; nothing without the option. Refuses
// --model beside it.
std::optional<model::ModelDescription> readHfConfigOption(const CliParser& parser);
galvatron::ModelSettings readModelOptions(const CliParser& parser, settings::SettingNames& given);

// A strategy file with the command line's settings and model flags (galvatron::resolveStrategyRun);
// every contradiction is printed to stderr as a warning. The settings are validated.
galvatron::StrategyRun readStrategyRun(const CliParser& parser, const galvatron::StrategyFile& strategy);

// Whether the command line names profile files (--profiles, --computation, ...).
bool hasProfileOptions(const CliParser& parser);

// --profiles DIR, --hardware DIR and the six files one by one.
void addProfileOptions(CliParser& parser);
// Loads the profiles the options name. Without --seq-length, the sequence length becomes the one
// of the memory profile(s) found when they hold exactly one, else Galvatron's default 8192;
// `settings` is updated with it.
galvatron::SearchInputs loadSearchInputs(const CliParser& parser, galvatron::SearchSettings& settings);
// The same, with `given` as the settings not to take from a synthesized set.
galvatron::SearchInputs loadSearchInputs(
    const CliParser& parser, galvatron::SearchSettings& settings, const settings::SettingNames& given);

// The cost model of a strategy run: the profiles the command line names, else profiles synthesized
// for the run's model and cluster, else none (with the reason in `why`).
std::shared_ptr<const galvatron::CostModel> strategyCostModel(
    const CliParser& parser, galvatron::StrategyRun& run, std::string& why);

} // namespace stratex::cli
