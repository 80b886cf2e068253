// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/cli/cli_parser.h"
#include "core/search/search_inputs.h"
#include "core/search/search_settings.h"

namespace stratex::cli {

// Galvatron's search settings as command-line flags (a public contract: --num-nodes,
// --memory-constraint, --settle-bsz, --disable-tp, --pipeline-type, --time-profile-mode, ...),
// shared by `search`, `evaluate` and `export`.
void addSearchSettingsOptions(CliParser& parser);
search::SearchSettings readSearchSettings(const CliParser& parser);

// --profiles DIR, --hardware DIR and the six files one by one.
void addProfileOptions(CliParser& parser);
// Loads the profiles the options name. Without --seq-length, the sequence length becomes the one
// of the memory profile(s) found when they hold exactly one, else Galvatron's default 8192;
// `settings` is updated with it.
search::SearchInputs loadSearchInputs(const CliParser& parser, search::SearchSettings& settings);

} // namespace stratex::cli
