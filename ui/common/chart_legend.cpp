// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/chart_legend.h"

#include <algorithm>

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QPainter>
#include <QXYSeries>

namespace stratex::ui {

namespace {
constexpr int kSwatch = 10; // side of a fill's square
constexpr int kLineSample = 18; // length of a line's sample
constexpr int kTextGap = 5; // between the sample and the text
constexpr int kEntryGap = 14; // between entries
constexpr int kRowGap = 2;
constexpr int kMargin = 4; // around the rows
} // namespace

ChartLegend::ChartLegend(QChart* chart, QWidget* parent)
    : QWidget(parent)
    , m_chart(chart)
{
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setAccessibleName(tr("Legend"));
    // On the chart's background (the palette's Base), as the chart's own legend was.
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void ChartLegend::refresh()
{
    m_entries.clear();
    QStringList described;
    for (QLegendMarker* marker : m_chart->legend()->markers()) {
        if (marker->label().isEmpty())
            continue;
        // The series' own pen and brush: a line marker's pen is Qt Charts' default, not the line's.
        Entry entry { marker->label(), marker->brush(), marker->pen(), false };
        if (const auto* xy = qobject_cast<QXYSeries*>(marker->series())) {
            entry.line = true;
            entry.pen = xy->pen();
        } else if (const auto* area = qobject_cast<QAreaSeries*>(marker->series())) {
            entry.brush = area->brush();
        }
        m_entries.push_back(entry);
        described << marker->label();
    }
    m_chart->legend()->hide();
    setAccessibleDescription(described.join(QStringLiteral(", ")));
    setVisible(!m_entries.empty());
    updateGeometry();
    update();
}

int ChartLegend::entryWidth(const Entry& entry) const
{
    return (entry.line ? kLineSample : kSwatch) + kTextGap + fontMetrics().horizontalAdvance(entry.text);
}

std::vector<QPoint> ChartLegend::layoutEntries(int width, int* height) const
{
    const int rowHeight = std::max(kSwatch, fontMetrics().height());
    // Rows centred as Qt Charts centres its legend: first the entries of each row, then the offset.
    std::vector<QPoint> corners;
    std::vector<std::pair<std::size_t, int>> rows; // first entry, row width
    int x = 0;
    int y = kMargin;
    rows.emplace_back(0, 0);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const int w = entryWidth(m_entries[i]);
        if (x > 0 && kMargin + x + w > width - kMargin) {
            rows.back().second = x - kEntryGap;
            rows.emplace_back(i, 0);
            x = 0;
            y += rowHeight + kRowGap;
        }
        corners.emplace_back(x, y);
        x += w + kEntryGap;
    }
    rows.back().second = x - kEntryGap;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::size_t end = r + 1 < rows.size() ? rows[r + 1].first : corners.size();
        const int offset = std::max(kMargin, (width - rows[r].second) / 2);
        for (std::size_t i = rows[r].first; i < end; ++i)
            corners[i].rx() += offset;
    }
    if (height)
        *height = m_entries.empty() ? 0 : y + rowHeight + kMargin;
    return corners;
}

QSize ChartLegend::sizeHint() const
{
    // As narrow as its widest entry: the legend takes the chart's width and wraps in it; one row
    // of every entry would widen the window (heightForWidth gives the height in the width given).
    return minimumSizeHint();
}

QSize ChartLegend::minimumSizeHint() const
{
    int widest = 0;
    for (const Entry& entry : m_entries)
        widest = std::max(widest, entryWidth(entry));
    return QSize(widest + 2 * kMargin, heightForWidth(widest + 2 * kMargin));
}

int ChartLegend::heightForWidth(int width) const
{
    int height = 0;
    layoutEntries(width, &height);
    return height;
}

void ChartLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const int rowHeight = std::max(kSwatch, fontMetrics().height());
    const std::vector<QPoint> corners = layoutEntries(width(), nullptr);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const Entry& entry = m_entries[i];
        int x = corners[i].x();
        const int middle = corners[i].y() + rowHeight / 2;
        if (entry.line) {
            QPen pen = entry.pen;
            pen.setWidthF(std::max(2.0, pen.widthF()));
            p.setPen(pen);
            p.drawLine(x, middle, x + kLineSample - 2, middle);
            x += kLineSample;
        } else {
            p.setPen(Qt::NoPen);
            p.setBrush(entry.brush);
            p.drawRect(QRect(x, middle - kSwatch / 2, kSwatch, kSwatch));
            x += kSwatch;
        }
        p.setPen(palette().color(QPalette::Text));
        p.drawText(
            QRect(x + kTextGap, corners[i].y(), width() - x, rowHeight), Qt::AlignLeft | Qt::AlignVCenter, entry.text);
    }
}

} // namespace stratex::ui
