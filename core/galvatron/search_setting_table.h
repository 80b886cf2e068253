// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/search_settings.h"
#include "core/settings/setting_table.h"

namespace stratex::galvatron {

// Every search setting, once: its flag (`stratex-cli search --FLAG`), its Galvatron name, the
// Search page's field, range, choices and help. The defaults are SearchSettings{}'s.
const settings::SettingTable<SearchSettings>& searchSettingTable();

// What Galvatron main does with a batch that does not divide evenly, and what Stratex does.
std::string_view unevenBatchExplanation();

} // namespace stratex::galvatron
