// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/evaluate.h"
#include "ui/common/chart_style.h"

namespace stratex::ui {

// Memory per pipeline stage of a plan as stacked bars: its layers, the embedding / LM head (with
// the 1024 MB context), Megatron's global buffer, and Galvatron's allocator reserve.
class StageMemoryChart : public PaletteChartView {
    Q_OBJECT
public:
    explicit StageMemoryChart(QWidget* parent = nullptr);
    void setEvaluation(const galvatron::Evaluation* evaluation);
};

} // namespace stratex::ui
