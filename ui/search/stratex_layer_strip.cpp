// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/stratex_layer_strip.h"

#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include "core/hardware/cluster_description.h"
#include "ui/common/categorical_palette.h"

namespace stratex::ui {

namespace {
constexpr int kLabelWidth = 90;
constexpr int kTop = 4;
constexpr int kRowHeight = 26;
constexpr int kGap = 8;
constexpr int kMargin = 6;
} // namespace

std::vector<StratexLayerStrip::Chunk> modelChunks(const std::vector<int>& stageLayers, int vpp)
{
    std::vector<StratexLayerStrip::Chunk> chunks;
    const int p = int(stageLayers.size());
    const int v = std::max(1, vpp);
    int layer = 0;
    for (int j = 0; j < v; ++j) {
        for (int i = 0; i < p; ++i) {
            const int stage = stageLayers[std::size_t(i)];
            const int count = stage / v + (j < stage % v ? 1 : 0);
            chunks.push_back({ i, j, layer, count });
            layer += count;
        }
    }
    return chunks;
}

StratexLayerStrip::StratexLayerStrip(QWidget* parent)
    : QWidget(parent)
{
    setMinimumHeight(sizeHint().height());
    setMouseTracking(true);
}

QSize StratexLayerStrip::sizeHint() const
{
    return QSize(600, kTop + 2 * kRowHeight + kGap + kMargin + 2);
}

void StratexLayerStrip::setPlan(std::optional<megatron::Estimate> plan)
{
    m_plan = std::move(plan);
    m_chunks.clear();
    if (m_plan) {
        std::vector<int> stageLayers;
        for (const megatron::StageEstimate& stage : m_plan->stages)
            stageLayers.push_back(stage.layers);
        m_chunks = modelChunks(stageLayers, m_plan->strategy.vpp);
    }
    update();
}

int StratexLayerStrip::totalLayers() const
{
    int total = 0;
    for (const Chunk& chunk : m_chunks)
        total += chunk.layers;
    return total;
}

double StratexLayerStrip::layerWidth() const
{
    const int total = totalLayers();
    return total > 0 ? double(width() - kLabelWidth - kMargin) / total : 0.0;
}

QRect StratexLayerStrip::chunkRect(int index) const
{
    if (index < 0 || std::size_t(index) >= m_chunks.size())
        return {};
    const Chunk& chunk = m_chunks[std::size_t(index)];
    const double w = layerWidth();
    const int left = kLabelWidth + int(chunk.first_layer * w);
    const int right = kLabelWidth + int((chunk.first_layer + chunk.layers) * w);
    return QRect(left, kTop, std::max(1, right - left), kRowHeight);
}

QRect StratexLayerStrip::stageRect(int stage) const
{
    if (!m_plan || stage < 0 || std::size_t(stage) >= m_plan->stages.size())
        return {};
    int before = 0;
    for (int i = 0; i < stage; ++i)
        before += m_plan->stages[std::size_t(i)].layers;
    const double w = layerWidth();
    const int left = kLabelWidth + int(before * w);
    const int right = kLabelWidth + int((before + m_plan->stages[std::size_t(stage)].layers) * w);
    return QRect(left, kTop + kRowHeight + kGap, std::max(1, right - left), kRowHeight);
}

int StratexLayerStrip::chunkAt(QPoint point) const
{
    for (int i = 0; i < int(m_chunks.size()); ++i) {
        if (chunkRect(i).contains(point))
            return i;
    }
    return -1;
}

int StratexLayerStrip::stageAt(QPoint point) const
{
    if (!m_plan)
        return -1;
    for (int i = 0; i < int(m_plan->stages.size()); ++i) {
        if (stageRect(i).contains(point))
            return i;
    }
    return -1;
}

void StratexLayerStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QColor text = palette().color(QPalette::Text);
    if (!m_plan || m_chunks.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a plan to see its stages and layers"));
        return;
    }
    const int v = std::max(1, m_plan->strategy.vpp);
    p.setPen(text);
    p.drawText(QRect(0, kTop, kLabelWidth - 6, kRowHeight), Qt::AlignRight | Qt::AlignVCenter, tr("model order"));
    p.drawText(QRect(0, kTop + kRowHeight + kGap, kLabelWidth - 6, kRowHeight), Qt::AlignRight | Qt::AlignVCenter,
        tr("stages"));

    const QColor separator = palette().color(QPalette::Base);
    const double w = layerWidth();
    for (int i = 0; i < int(m_chunks.size()); ++i) {
        const Chunk& chunk = m_chunks[std::size_t(i)];
        if (chunk.layers == 0)
            continue;
        const QRect cell = chunkRect(i).adjusted(0, 0, -1, 0);
        const QColor fill = categoricalColor(chunk.stage);
        p.fillRect(cell, fill);
        // Faint ticks between the layers of a run, when there is room for them.
        if (w >= 4) {
            QColor tick = contrastingTextColor(fill);
            tick.setAlpha(60);
            p.setPen(tick);
            for (int k = 1; k < chunk.layers; ++k) {
                const int x = cell.left() + int(k * w);
                p.drawLine(x, cell.top() + cell.height() * 3 / 4, x, cell.bottom());
            }
        }
        const QString label = v > 1 ? QStringLiteral("s%1·c%2").arg(chunk.stage).arg(chunk.chunk)
                                    : QStringLiteral("s%1").arg(chunk.stage);
        if (cell.width() >= p.fontMetrics().horizontalAdvance(label) + 4) {
            p.setPen(contrastingTextColor(fill));
            p.drawText(cell, Qt::AlignCenter, label);
        }
    }
    for (int stage = 0; stage < int(m_plan->stages.size()); ++stage) {
        const QRect block = stageRect(stage).adjusted(0, 0, -2, 0);
        const QColor fill = categoricalColor(stage);
        p.fillRect(block, fill);
        // The stage's model chunks, split by thin lines.
        p.setPen(QPen(separator, 1));
        int offset = 0;
        QStringList counts;
        for (const Chunk& chunk : m_chunks) {
            if (chunk.stage != stage)
                continue;
            if (offset > 0) {
                const int x = block.left() + int(offset * w);
                p.drawLine(x, block.top(), x, block.bottom());
            }
            offset += chunk.layers;
            counts << QString::number(chunk.layers);
        }
        const int layers = m_plan->stages[std::size_t(stage)].layers;
        QString label = v > 1 ? QStringLiteral("%1 (%2)").arg(layers).arg(counts.join(QLatin1Char('+')))
                              : QString::number(layers);
        if (block.width() < p.fontMetrics().horizontalAdvance(label) + 4)
            label = QString::number(layers);
        if (block.width() >= p.fontMetrics().horizontalAdvance(label) + 4) {
            p.setPen(contrastingTextColor(fill));
            p.drawText(block, Qt::AlignCenter, label);
        }
    }
}

bool StratexLayerStrip::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_plan) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QLocale c = QLocale::c();
        if (const int index = chunkAt(help->pos()); index >= 0) {
            const Chunk& chunk = m_chunks[std::size_t(index)];
            QToolTip::showText(help->globalPos(),
                tr("<b>Stage %1, model chunk %2</b><br>layers %3–%4 (%5 layers)")
                    .arg(chunk.stage)
                    .arg(chunk.chunk)
                    .arg(chunk.first_layer)
                    .arg(chunk.first_layer + chunk.layers - 1)
                    .arg(chunk.layers),
                this, chunkRect(index));
            return true;
        }
        if (const int stage = stageAt(help->pos()); stage >= 0) {
            const megatron::StageEstimate& s = m_plan->stages[std::size_t(stage)];
            QToolTip::showText(help->globalPos(),
                tr("<b>Stage %1</b>: %2 layers<br>forward %3 ms, backward %4 ms per micro-batch<br>data-parallel "
                   "communication %5 ms, %6 ms exposed<br>%7 micro-batches of activations at the peak; %8 GiB")
                    .arg(stage)
                    .arg(s.layers)
                    .arg(c.toString(s.forward_ms, 'f', 2), c.toString(s.backward_ms, 'f', 2),
                        c.toString(s.dp_comm_ms, 'f', 1), c.toString(s.dp_exposed_ms, 'f', 1),
                        c.toString(s.inflight_microbatches_x100 / 100.0, 'f', 2),
                        c.toString(hardware::mbToGib(s.memory.totalMb()), 'f', 1)),
                this, stageRect(stage));
            return true;
        }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace stratex::ui
