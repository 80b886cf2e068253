// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/megatron/estimate.h"
#include "ui/common/chart_style.h"

class QBarSet;
class QLineSeries;

namespace stratex::ui {

// A stratex plan's memory per pipeline stage at its peak, stacked the way the estimate counts it:
// the allocated parts (weights, gradients, optimizer states, activations, logits, workspace) and on
// top what the device shows beyond them (allocator cache, CUDA context, NCCL), against the memory
// limit drawn as a dashed line across the stages; hovering a bar shows its value and the stage's
// allocated and device peaks. GiB, as the table's peak memory column.
class StratexMemoryChart : public PaletteChartView {
    Q_OBJECT
public:
    explicit StratexMemoryChart(QWidget* parent = nullptr);
    void setPlan(const megatron::Estimate* plan);

    // For tests: the stacked sets in order, and the limit line (nullptr without a plan).
    QList<QBarSet*> barSets() const;
    QLineSeries* limitLine() const { return m_limit; }

private:
    QLineSeries* m_limit = nullptr;
};

} // namespace stratex::ui
