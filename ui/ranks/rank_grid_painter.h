// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <utility>

#include <QFont>
#include <QPalette>
#include <QRect>
#include <QSize>

#include "core/ranks/group_kind.h"
#include "ui/ranks/rank_grid_view.h"

class QPainter;

namespace stratex::ui {

// Pixel geometry of the grid: pipeline-stage bands stacked vertically, a label column on the
// left. Shared by painting, hit testing, scrolling and export so they always agree.
class RankGridGeometry {
public:
    static constexpr int kLabelWidth = 84;
    static constexpr int kBandGap = 6;
    static constexpr int kMargin = 4;

    // columns: cells per row of a band; 0 picks gridColumns().
    RankGridGeometry(const RankGridView& view, int cellSize, int columns = 0);

    // The column count and cell size that show the whole grid largest inside `area`, with whole
    // nodes per row where a band wraps.
    static std::pair<int, int> fit(const RankGridView& view, QSize area, int minCell, int maxCell);

    int cellSize() const { return m_cellSize; }
    int columns() const { return m_columns; }
    int rowsPerBand() const { return m_rowsPerBand; }
    int rowOf(int rank) const;
    int columnOf(int rank) const;
    int rankAt(int row, int column) const; // -1 for an empty cell
    QSize contentSize() const;
    QRect cellRect(int row, int column) const;
    QRect rankRect(int rank) const;
    QRect bandRect(int stage) const; // the cells of one stage band
    int rankAt(QPoint point) const; // -1 outside any cell
    // Rows and columns intersecting `area` (inclusive ranges, possibly empty).
    void visibleCells(const QRect& area, int& firstRow, int& lastRow, int& firstColumn, int& lastColumn) const;

private:
    int bandTop(int stage) const;
    const RankGridView& m_view;
    int m_cellSize;
    int m_columns;
    int m_rowsPerBand;
};

struct RankGridStyle {
    int cellSize = 14;
    int columns = 0; // 0: gridColumns()
    ranks::GroupKind colourKind = ranks::GroupKind::Tp;
    ranks::GroupKind highlightKind = ranks::GroupKind::Tp;
    int selectedRank = -1;
    int hoveredRank = -1;
    QPalette palette;
};

// Whether rank numbers up to `largestRank` are drawn on cells of `cellSize` with `font`.
bool rankNumbersFit(const QFont& font, int cellSize, int largestRank);

// Paints the part of the grid inside `exposed` (content coordinates). Cost is proportional to the
// cells in `exposed`, not to the world size.
void paintRankGrid(QPainter& painter, const RankGridView& view, const RankGridStyle& style, const QRect& exposed);

} // namespace stratex::ui
