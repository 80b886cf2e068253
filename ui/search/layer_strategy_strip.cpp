// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/layer_strategy_strip.h"

#include <bit>

#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include "ui/common/categorical_palette.h"

namespace stratex::ui {

namespace {
constexpr int kLabelWidth = 70;
constexpr int kCellTop = 18; // room for the checkpoint bars and the stage labels
constexpr int kCellHeight = 26;
constexpr int kLegendHeight = 20;

int degreeColourIndex(int degree)
{
    return std::bit_width(unsigned(std::max(1, degree))) - 1; // 1 -> 0, 2 -> 1, 4 -> 2, ...
}
} // namespace

LayerStrategyStrip::LayerStrategyStrip(QWidget* parent)
    : QWidget(parent)
{
    setMinimumHeight(kCellTop + kCellHeight + kLegendHeight + 8);
    setMouseTracking(true);
}

QSize LayerStrategyStrip::sizeHint() const
{
    return QSize(600, kCellTop + kCellHeight + kLegendHeight + 8);
}

void LayerStrategyStrip::setEvaluation(std::optional<galvatron::Evaluation> evaluation)
{
    m_evaluation = std::move(evaluation);
    update();
}

QRect LayerStrategyStrip::cellRect(int layer) const
{
    if (!m_evaluation || m_evaluation->layers.empty())
        return {};
    const int layers = int(m_evaluation->layers.size());
    const double width = double(this->width() - kLabelWidth - 4) / layers;
    const int left = kLabelWidth + int(layer * width);
    const int right = kLabelWidth + int((layer + 1) * width);
    return QRect(left, kCellTop, std::max(1, right - left), kCellHeight);
}

int LayerStrategyStrip::layerAt(QPoint point) const
{
    if (!m_evaluation)
        return -1;
    for (int layer = 0; layer < int(m_evaluation->layers.size()); ++layer) {
        if (cellRect(layer).contains(point))
            return layer;
    }
    return -1;
}

void LayerStrategyStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QColor text = palette().color(QPalette::Text);
    p.setPen(text);
    if (!m_evaluation) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a plan to see its layers"));
        return;
    }
    p.drawText(QRect(0, kCellTop, kLabelWidth - 6, kCellHeight), Qt::AlignRight | Qt::AlignVCenter, tr("layers"));
    int previousStage = -1;
    for (int layer = 0; layer < int(m_evaluation->layers.size()); ++layer) {
        const galvatron::LayerBreakdown& breakdown = m_evaluation->layers[std::size_t(layer)];
        const galvatron::LayerStrategy& s = breakdown.strategy;
        const QRect cell = cellRect(layer).adjusted(0, 0, -1, 0);
        const QColor fill = categoricalColor(degreeColourIndex(s.tpsp()));
        p.fillRect(cell, fill);
        if (s.dp_type == galvatron::DpType::Zero3)
            p.fillRect(cell, QBrush(contrastingTextColor(fill), Qt::BDiagPattern));
        if (s.checkpoint)
            p.fillRect(QRect(cell.left(), kCellTop - 5, cell.width(), 4), text);
        if (cell.width() >= 22) {
            p.setPen(contrastingTextColor(fill));
            p.drawText(cell, Qt::AlignCenter,
                QStringLiteral("%1%2").arg(s.ulysses() ? QStringLiteral("sp") : QStringLiteral("tp")).arg(s.tpsp()));
        }
        if (breakdown.stage != previousStage) {
            p.setPen(text);
            if (previousStage >= 0) {
                QPen stagePen(text);
                stagePen.setWidth(2);
                p.setPen(stagePen);
                p.drawLine(cell.left() - 1, kCellTop - 8, cell.left() - 1, kCellTop + kCellHeight + 2);
            }
            p.setPen(text);
            p.drawText(QRect(cell.left() + 2, 0, 200, kCellTop - 6), Qt::AlignLeft | Qt::AlignVCenter,
                tr("stage %1").arg(breakdown.stage));
            previousStage = breakdown.stage;
        }
    }
    // Legend.
    const int y = kCellTop + kCellHeight + 6;
    int x = kLabelWidth;
    for (int degree = 1; degree <= 8; degree *= 2) {
        p.fillRect(QRect(x, y + 4, 12, 12), categoricalColor(degreeColourIndex(degree)));
        p.setPen(text);
        p.drawText(QRect(x + 16, y, 60, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("TP/SP %1").arg(degree));
        x += 80;
    }
    const QRect zero3(x, y + 4, 12, 12);
    p.fillRect(zero3, palette().color(QPalette::Mid));
    p.fillRect(zero3, QBrush(text, Qt::BDiagPattern));
    p.drawText(QRect(x + 16, y, 70, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("ZeRO-3"));
    x += 80;
    p.fillRect(QRect(x, y + 8, 12, 4), text);
    p.drawText(QRect(x + 16, y, 100, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("checkpoint"));
}

bool LayerStrategyStrip::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_evaluation) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int layer = layerAt(help->pos());
        if (layer < 0) {
            QToolTip::hideText();
            return true;
        }
        const galvatron::LayerBreakdown& b = m_evaluation->layers[std::size_t(layer)];
        QToolTip::showText(help->globalPos(),
            tr("<b>Layer %1</b> (stage %2): %3<br>time %4 ms per micro-batch (with gradient sync)<br>memory %5 MB "
               "(model states %6 + activations %7)")
                .arg(layer)
                .arg(b.stage)
                .arg(QString::fromStdString(b.strategy.notation()))
                .arg(QLocale::c().toString(b.time.sync_s * 1000.0, 'f', 2))
                .arg(b.memory.weight_mb)
                .arg(QLocale::c().toString(b.memory.model_states_mb, 'f', 0),
                    QLocale::c().toString(b.memory.activation_mb, 'f', 0)),
            this, cellRect(layer));
        return true;
    }
    return QWidget::event(event);
}

} // namespace stratex::ui
