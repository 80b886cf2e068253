// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/planner/planner_config.h"
#include "core/settings/setting_table.h"

namespace stratex::planner {

// The planner settings a user chooses, once: their flags (`stratex-cli plan --FLAG`), the
// Planner page's fields, ranges, choices and help. The defaults are PlannerConfig{}'s; the CLI
// starts --mode from STRATEX_FAST_MODE instead (plannerModeFromEnvironment).
const settings::SettingTable<PlannerConfig>& plannerSettingTable();

} // namespace stratex::planner
