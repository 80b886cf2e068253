// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

#include "core/galvatron/evaluate.h"
#include "ui/common/chart_style.h"

namespace stratex::ui {

// Memory per pipeline stage of a plan as stacked bars of what the plan holds: its layers, the
// embedding / LM head (with the 1024 MB context) and Megatron's global buffer. Galvatron's
// allocator reserve is not stacked into the bars (it is no memory the plan uses): it is the band
// between the search's limit (the line every bar must stay under) and the GPU's memory (the top
// line). Hovering a bar shows its stage's numbers.
class StageMemoryChart : public PaletteChartView {
    Q_OBJECT
public:
    explicit StageMemoryChart(QWidget* parent = nullptr);
    void setEvaluation(const galvatron::Evaluation* evaluation);
    // What hovering stage `index` shows (tests; empty without a plan).
    QString stageToolTip(int index) const;
    // The fullest stage's bar (the planned peak, MB; 0 without a plan) and what the bars are
    // called: the Search table's memory column shows the same number under the same label.
    int plannedPeakMb() const { return m_plannedPeakMb; }
    static QString barsLabel();

private:
    QStringList m_stageToolTips;
    int m_plannedPeakMb = 0;
};

} // namespace stratex::ui
