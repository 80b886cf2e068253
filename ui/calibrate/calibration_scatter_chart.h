// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/runs/calibration.h"
#include "ui/common/chart_style.h"

class QScatterSeries;

namespace stratex::ui {

// Predicted against measured iteration time, one point per run, before the fit and after it, with
// the y = x diagonal a perfect model would put every point on. Log axes when the runs span more than
// a decade (published runs go from 0.1 s to a minute), linear otherwise. Hovering a point names the run.
class CalibrationScatterChart : public PaletteChartView {
    Q_OBJECT
public:
    explicit CalibrationScatterChart(QWidget* parent = nullptr);

    // Both lists in the runs' order; empty clears the chart.
    void setErrors(const std::vector<runs::RunError>& before, const std::vector<runs::RunError>& after);

    QScatterSeries* beforeSeries() const { return m_before; }
    QScatterSeries* afterSeries() const { return m_after; }
    bool logAxes() const { return m_log; }

private:
    void rebuild();
    void showPointToolTip(const QPointF& point, bool state, bool after);

    std::vector<runs::RunError> m_beforeErrors;
    std::vector<runs::RunError> m_afterErrors;
    QScatterSeries* m_before = nullptr;
    QScatterSeries* m_after = nullptr;
    bool m_log = false;
};

} // namespace stratex::ui
