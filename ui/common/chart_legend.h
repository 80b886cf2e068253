// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QBrush>
#include <QPen>
#include <QWidget>

class QChart;

namespace stratex::ui {

// A chart's legend as a widget under it, in rows that wrap, each entry whole. Qt Charts lays its
// legend out on one row and truncates every label to fit ("optimizer st...", two different parts
// both "the running..."), without a tooltip (issue 24: the Search page's memory charts at
// 1280 × 800 and at the default size). refresh() reads the chart's legend markers (their labels,
// brushes and pens) and hides the chart's own legend.
class ChartLegend : public QWidget {
    Q_OBJECT
public:
    struct Entry {
        QString text;
        QBrush brush; // a bar set's or an area's fill
        QPen pen; // a line's pen
        bool line = false;
    };

    explicit ChartLegend(QChart* chart, QWidget* parent = nullptr);

    void refresh();
    const std::vector<Entry>& entries() const { return m_entries; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int entryWidth(const Entry& entry) const;
    std::vector<QPoint> layoutEntries(int width, int* height) const;

    QChart* m_chart;
    std::vector<Entry> m_entries;
};

} // namespace stratex::ui
