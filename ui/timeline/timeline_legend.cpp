// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_legend.h"

#include <algorithm>

#include <QEvent>
#include <QPainter>

#include "ui/timeline/timeline_painter.h"

namespace stratex::ui {

namespace {
constexpr int kSwatch = 12; // side of one shade's square
constexpr int kLineWidth = 22; // length of a line entry's sample
constexpr int kTextGap = 5; // between the swatches and the text
constexpr int kEntryGap = 16; // between entries
constexpr int kRowGap = 4;
} // namespace

TimelineLegend::TimelineLegend(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("timelineLegend"));
    setAccessibleName(tr("Timeline legend"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    rebuild();
}

void TimelineLegend::rebuild()
{
    using sim::OpKind;
    const auto shades = [](OpKind kind) {
        std::vector<QColor> colours;
        for (int microbatch = 0; microbatch < kTimelineShades; ++microbatch)
            colours.push_back(timelineOpColor(kind, microbatch));
        return colours;
    };
    m_entries = {
        { tr("forward"), shades(OpKind::Forward), {}, Qt::SolidLine },
        { tr("backward"), shades(OpKind::Backward), {}, Qt::SolidLine },
        { tr("weight gradient"), shades(OpKind::Weight), {}, Qt::SolidLine },
        { tr("send"), shades(OpKind::Send), {}, Qt::SolidLine },
        { tr("receive"), shades(OpKind::Recv), {}, Qt::SolidLine },
        { tr("memory"), {}, timelineMemoryColor(), Qt::SolidLine },
        { tr("memory limit"), {}, palette().color(QPalette::WindowText), Qt::DashLine },
    };
    QStringList described;
    for (const Entry& entry : m_entries)
        described << entry.text;
    setToolTip(tr("Each kind of op in %1 shades, one per micro-batch in turn (micro-batch m has shade m mod %1): "
                  "neighbouring micro-batches stay apart.")
                   .arg(kTimelineShades));
    setAccessibleDescription(
        tr("Colours of the timeline: %1. %2").arg(described.join(QStringLiteral(", ")), toolTip()));
    updateGeometry();
    update();
}

int TimelineLegend::entryWidth(const Entry& entry) const
{
    const int sample = entry.swatches.empty() ? kLineWidth : int(entry.swatches.size()) * kSwatch;
    return sample + kTextGap + fontMetrics().horizontalAdvance(entry.text);
}

std::vector<QPoint> TimelineLegend::layoutEntries(int width, int* height) const
{
    const int rowHeight = std::max(kSwatch, fontMetrics().height());
    std::vector<QPoint> corners;
    int x = 0;
    int y = 0;
    for (const Entry& entry : m_entries) {
        const int w = entryWidth(entry);
        if (x > 0 && x + w > width) {
            x = 0;
            y += rowHeight + kRowGap;
        }
        corners.emplace_back(x, y);
        x += w + kEntryGap;
    }
    if (height)
        *height = y + rowHeight;
    return corners;
}

QSize TimelineLegend::sizeHint() const
{
    int width = 0;
    for (const Entry& entry : m_entries)
        width += entryWidth(entry) + kEntryGap;
    return QSize(width - kEntryGap, heightForWidth(width));
}

QSize TimelineLegend::minimumSizeHint() const
{
    int widest = 0;
    for (const Entry& entry : m_entries)
        widest = std::max(widest, entryWidth(entry));
    return QSize(widest, heightForWidth(widest));
}

int TimelineLegend::heightForWidth(int width) const
{
    int height = 0;
    layoutEntries(width, &height);
    return height;
}

void TimelineLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintEntries(p, width());
}

void TimelineLegend::paintEntries(QPainter& p, int width) const
{
    p.save();
    p.setFont(font());
    const int rowHeight = std::max(kSwatch, fontMetrics().height());
    const std::vector<QPoint> corners = layoutEntries(width, nullptr);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const Entry& entry = m_entries[i];
        int x = corners[i].x();
        const int middle = corners[i].y() + rowHeight / 2;
        if (entry.swatches.empty()) {
            QPen pen(entry.line, 2, entry.lineStyle);
            p.setPen(pen);
            p.drawLine(x, middle, x + kLineWidth - 2, middle);
            x += kLineWidth;
        } else {
            for (const QColor& colour : entry.swatches) {
                p.fillRect(QRect(x, middle - kSwatch / 2, kSwatch, kSwatch), colour);
                x += kSwatch;
            }
        }
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(
            QRect(x + kTextGap, corners[i].y(), width, rowHeight), Qt::AlignLeft | Qt::AlignVCenter, entry.text);
    }
    p.restore();
}

void TimelineLegend::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        rebuild();
}

} // namespace stratex::ui
