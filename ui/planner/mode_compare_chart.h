// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QWidget>

#include "core/planner/planner_compare.h"

class QChart;
class QChartView;

namespace stratex::ui {

// Fast against normal mode, as two Qt Charts over the global batch: planning time (log scale,
// the cost) and makespan (the quality).
class ModeCompareChart : public QWidget {
    Q_OBJECT
public:
    explicit ModeCompareChart(QWidget* parent = nullptr);

    void setRows(const std::vector<planner::PlanCompareRow>& rows);
    QChart* timeChart() const;
    QChart* makespanChart() const;
    QChartView* timeView() const { return m_timeView; }
    QChartView* makespanView() const { return m_makespanView; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyTheme();
    void rebuild();

    std::vector<planner::PlanCompareRow> m_rows;
    QChartView* m_timeView;
    QChartView* m_makespanView;
};

} // namespace stratex::ui
