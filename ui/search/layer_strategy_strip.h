// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include <QWidget>

#include "core/galvatron/evaluate.h"

namespace stratex::ui {

// A plan's per-layer strategy at a glance: one cell per transformer layer, coloured by its TP/SP
// degree, hatched where ZeRO-3, a bar on top where checkpointed, pipeline stages separated. The
// tooltip of a layer gives its strategy, time and memory.
class LayerStrategyStrip : public QWidget {
    Q_OBJECT
public:
    explicit LayerStrategyStrip(QWidget* parent = nullptr);

    void setEvaluation(std::optional<galvatron::Evaluation> evaluation);
    const std::optional<galvatron::Evaluation>& evaluation() const { return m_evaluation; }
    int layerAt(QPoint point) const; // -1 outside the cells
    QRect cellRect(int layer) const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    std::optional<galvatron::Evaluation> m_evaluation;
};

} // namespace stratex::ui
