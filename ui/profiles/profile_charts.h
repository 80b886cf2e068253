// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile/profile_overview.h"

class QChart;

namespace stratex::ui {

// The four charts of the Profiles page, rebuilt from an overview (empty charts for no overview).
void fillBatchTimeChart(QChart* chart, const profile::ProfileOverview* overview);
void fillSequenceTimeChart(QChart* chart, const profile::ProfileOverview* overview);
void fillActivationChart(QChart* chart, const profile::ProfileOverview* overview);
void fillBandwidthChart(QChart* chart, const profile::ProfileOverview* overview);

} // namespace stratex::ui
