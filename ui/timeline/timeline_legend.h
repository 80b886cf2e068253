// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QColor>
#include <QWidget>

class QPainter;

namespace stratex::ui {

// The Timeline's legend, in the painter's colours: each kind of op with all its shades (they
// cycle with the micro-batch id), the memory curve and the memory limit. Entries wrap onto more
// rows when the widget is narrow.
class TimelineLegend : public QWidget {
    Q_OBJECT
public:
    struct Entry {
        QString text;
        std::vector<QColor> swatches; // op shades, micro-batch 0, 1, ... ; empty for a line
        QColor line; // the line's colour, for line entries
        Qt::PenStyle lineStyle = Qt::SolidLine;
    };

    explicit TimelineLegend(QWidget* parent = nullptr);

    const std::vector<Entry>& entries() const { return m_entries; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    // Paints the entries laid out in `width` (the widget's paintEvent; image exports, under the
    // timeline).
    void paintEntries(QPainter& painter, int width) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    int entryWidth(const Entry& entry) const;
    // Top-left corner of each entry when laid out in `width`; the laid-out height in `height`.
    std::vector<QPoint> layoutEntries(int width, int* height) const;

    std::vector<Entry> m_entries;
};

} // namespace stratex::ui
