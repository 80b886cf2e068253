// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QChart;

namespace stratex::ui {

// Empties a chart for a rebuild: deletes its series and its axes. QChart::removeAxis releases
// ownership without deleting, so removing alone would leak every axis of every rebuild.
void resetChart(QChart* chart);

} // namespace stratex::ui
