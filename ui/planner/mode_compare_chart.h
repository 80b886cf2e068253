// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QWidget>

#include "core/planner/planner_compare.h"
#include "ui/common/chart_style.h"

class QChart;

namespace stratex::ui {

// Fast against normal mode, as two Qt Charts over the global batch: planning time (log scale,
// the cost) and makespan (the quality; with rows planned over several seeds, a min-max bar per
// mode and batch shows how much of the makespan is the luck of the permutation shuffles).
class ModeCompareChart : public QWidget {
    Q_OBJECT
public:
    explicit ModeCompareChart(QWidget* parent = nullptr);

    void setRows(const std::vector<planner::PlanCompareRow>& rows);
    QChart* timeChart() const;
    QChart* makespanChart() const;
    PaletteChartView* timeView() const { return m_timeView; }
    PaletteChartView* makespanView() const { return m_makespanView; }

private:
    void rebuild();

    std::vector<planner::PlanCompareRow> m_rows;
    PaletteChartView* m_timeView;
    PaletteChartView* m_makespanView;
};

} // namespace stratex::ui
