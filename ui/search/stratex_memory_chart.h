// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include "core/megatron/estimate.h"
#include "core/megatron/peak_explanation.h"
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

// The worst rank's peak moment of a stratex plan (megatron::PeakExplanation, issue 23): one
// horizontal stacked bar of every part alive then, in the order `stratex-cli evaluate` lists them
// (megatron::peakParts), the moment (stage, op, micro-batch, chunk, time) in the title; hovering a
// part shows its value. GiB, as the memory chart beside it.
class StratexPeakChart : public PaletteChartView {
    Q_OBJECT
public:
    explicit StratexPeakChart(QWidget* parent = nullptr);
    void setPeak(const std::optional<megatron::PeakExplanation>& peak);

    // For tests: the parts' sets in order (one value each, GiB) and the text a hover shows for the
    // part at `index` (empty out of range).
    QList<QBarSet*> barSets() const;
    QString hoverText(int index) const;

private:
    QStringList m_hover;
};

} // namespace stratex::ui
