// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/rank_grid_painter.h"

#include "ui/common/categorical_palette.h"
#include "ui/ranks/rank_grid_view.h"

#include <QPainter>

namespace stratex::ui {

using ranks::GroupKind;

RankGridGeometry::RankGridGeometry(const RankGridView& view, int cellSize, int columns)
    : m_view(view)
    , m_cellSize(std::max(1, cellSize))
    , m_columns(columns > 0 ? std::min(columns, view.ranksPerBand) : gridColumns(view.ranksPerBand, view.grid.gpusPerNode()))
    , m_rowsPerBand((view.ranksPerBand + m_columns - 1) / m_columns)
{
}

std::pair<int, int> RankGridGeometry::fit(const RankGridView& view, QSize area, int minCell, int maxCell)
{
    const int stages = view.stages();
    const int node = std::max(1, view.grid.gpusPerNode());
    const int width = area.width() - kLabelWidth - kMargin;
    const int height = area.height() - 2 * kMargin - (stages - 1) * kBandGap;
    std::pair<int, int> best { gridColumns(view.ranksPerBand, node), minCell };
    const auto consider = [&](int columns) {
        const int rows = (view.ranksPerBand + columns - 1) / columns;
        const int cell = std::min(maxCell, std::min(width / columns, height / (stages * rows)));
        if (cell > best.second || (cell == best.second && columns > best.first && cell > minCell))
            best = { columns, cell };
    };
    consider(view.ranksPerBand);
    for (int columns = node; columns < view.ranksPerBand; columns += node)
        consider(columns);
    best.second = std::max(best.second, minCell);
    return best;
}

int RankGridGeometry::rowOf(int rank) const
{
    return m_view.stageOf(rank) * m_rowsPerBand + m_view.indexInBand[std::size_t(rank)] / m_columns;
}

int RankGridGeometry::columnOf(int rank) const
{
    return m_view.indexInBand[std::size_t(rank)] % m_columns;
}

int RankGridGeometry::rankAt(int row, int column) const
{
    if (row < 0 || column < 0 || column >= m_columns)
        return -1;
    return m_view.rankInBand(row / m_rowsPerBand, (row % m_rowsPerBand) * m_columns + column);
}

int RankGridGeometry::bandTop(int stage) const
{
    return kMargin + stage * (m_rowsPerBand * m_cellSize + kBandGap);
}

QSize RankGridGeometry::contentSize() const
{
    return QSize(kLabelWidth + m_columns * m_cellSize + kMargin, bandTop(m_view.stages()) - kBandGap + kMargin);
}

QRect RankGridGeometry::cellRect(int row, int column) const
{
    const int stage = row / m_rowsPerBand;
    const int rowInBand = row % m_rowsPerBand;
    return QRect(kLabelWidth + column * m_cellSize, bandTop(stage) + rowInBand * m_cellSize, m_cellSize, m_cellSize);
}

QRect RankGridGeometry::rankRect(int rank) const
{
    return cellRect(rowOf(rank), columnOf(rank));
}

QRect RankGridGeometry::bandRect(int stage) const
{
    return QRect(kLabelWidth, bandTop(stage), m_columns * m_cellSize, m_rowsPerBand * m_cellSize);
}

int RankGridGeometry::rankAt(QPoint point) const
{
    if (point.x() < kLabelWidth || point.y() < kMargin)
        return -1;
    const int bandPitch = m_rowsPerBand * m_cellSize + kBandGap;
    const int stage = (point.y() - kMargin) / bandPitch;
    const int inBand = (point.y() - kMargin) % bandPitch;
    if (stage >= m_view.stages() || inBand >= m_rowsPerBand * m_cellSize)
        return -1;
    const int column = (point.x() - kLabelWidth) / m_cellSize;
    return rankAt(stage * m_rowsPerBand + inBand / m_cellSize, column);
}

void RankGridGeometry::visibleCells(const QRect& area, int& firstRow, int& lastRow, int& firstColumn,
    int& lastColumn) const
{
    const int bandPitch = m_rowsPerBand * m_cellSize + kBandGap;
    const auto rowAtY = [&](int y, bool last) {
        y = std::max(0, y - kMargin);
        const int stage = std::min(m_view.stages() - 1, y / bandPitch);
        const int inBand = std::min(y - stage * bandPitch, m_rowsPerBand * m_cellSize - 1);
        const int row = stage * m_rowsPerBand + inBand / m_cellSize;
        // A y inside a gap belongs to the band above for the last row, the band below for the first.
        if (!last && y - stage * bandPitch >= m_rowsPerBand * m_cellSize)
            return std::min(row + 1, m_view.stages() * m_rowsPerBand - 1);
        return row;
    };
    firstRow = rowAtY(area.top(), false);
    lastRow = rowAtY(area.bottom(), true);
    firstColumn = std::max(0, (area.left() - kLabelWidth) / m_cellSize);
    lastColumn = std::min(m_columns - 1, (area.right() - kLabelWidth) / m_cellSize);
}

namespace {

QColor dimmed(const QColor& colour, const QColor& background)
{
    // Blend three quarters of the way to the background: still recognisable, clearly inactive.
    return QColor::fromRgbF(colour.redF() * 0.25 + background.redF() * 0.75,
        colour.greenF() * 0.25 + background.greenF() * 0.75, colour.blueF() * 0.25 + background.blueF() * 0.75);
}

} // namespace

void paintRankGrid(QPainter& painter, const RankGridView& view, const RankGridStyle& style, const QRect& exposed)
{
    const RankGridGeometry geometry(view, style.cellSize, style.columns);
    const QPalette& palette = style.palette;
    const QColor background = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    const QColor noGroup = palette.color(QPalette::Mid);
    const int cell = geometry.cellSize();

    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.fillRect(exposed, background);

    // Stage labels and band backgrounds.
    for (int stage = 0; stage < view.stages(); ++stage) {
        const QRect band = geometry.bandRect(stage);
        if (!band.adjusted(-RankGridGeometry::kLabelWidth, 0, 0, 0).intersects(exposed))
            continue;
        painter.fillRect(band.adjusted(-2, -2, 2, 2), palette.color(QPalette::AlternateBase));
        painter.setPen(text);
        const QRect label(RankGridGeometry::kMargin, band.top(), RankGridGeometry::kLabelWidth - 10,
            std::max(band.height(), painter.fontMetrics().height()));
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("stage %1").arg(stage));
    }

    int firstRow = 0, lastRow = -1, firstColumn = 0, lastColumn = -1;
    geometry.visibleCells(exposed, firstRow, lastRow, firstColumn, lastColumn);

    const std::vector<int>& colourIndex = view.groupIndex[std::size_t(style.colourKind)];
    const std::vector<int>& highlightIndex = view.groupIndex[std::size_t(style.highlightKind)];
    const int selectedGroup = style.selectedRank >= 0 ? highlightIndex[std::size_t(style.selectedRank)] : -1;
    const bool selecting = style.selectedRank >= 0;
    const int gap = cell >= 6 ? 1 : 0;

    // Cells.
    for (int row = firstRow; row <= lastRow; ++row) {
        for (int column = firstColumn; column <= lastColumn; ++column) {
            const int rank = geometry.rankAt(row, column);
            if (rank < 0)
                continue;
            const int group = colourIndex[std::size_t(rank)];
            QColor fill = group >= 0 ? categoricalColor(group) : noGroup;
            const bool member = selecting
                && (rank == style.selectedRank
                    || (selectedGroup >= 0 && highlightIndex[std::size_t(rank)] == selectedGroup));
            if (selecting && !member)
                fill = dimmed(fill, background);
            const QRect r = geometry.cellRect(row, column).adjusted(0, 0, -gap, -gap);
            painter.fillRect(r, fill);
            if (cell >= 8 && view.traced[std::size_t(rank)]) {
                // The tracer runs this rank: a dot in the corner, visible on every fill colour.
                const int dot = std::max(3, cell / 3);
                const QRect marker(r.right() - dot, r.top() + 1, dot, dot);
                painter.fillRect(marker, contrastingTextColor(fill));
            } else if (view.traced[std::size_t(rank)]) {
                painter.fillRect(r, text);
            }
            if (cell >= 30) {
                painter.setPen(contrastingTextColor(fill));
                painter.drawText(r, Qt::AlignCenter, QString::number(rank));
            }
        }
    }

    // Node boundaries: a line wherever two neighbouring cells sit on different nodes. Small cells
    // get thin, muted, vertical-only lines so the boundaries stay readable instead of hatching.
    const int gpn = view.grid.gpusPerNode();
    const bool smallCells = cell < 6;
    if (!smallCells || cell * gpn >= 16) {
        QPen nodePen(smallCells ? palette.color(QPalette::Dark) : text);
        nodePen.setWidth(cell >= 12 ? 2 : 1);
        painter.setPen(nodePen);
        for (int row = firstRow; row <= lastRow; ++row) {
            for (int column = firstColumn; column <= lastColumn; ++column) {
                const int rank = geometry.rankAt(row, column);
                if (rank < 0)
                    continue;
                const QRect r = geometry.cellRect(row, column);
                const int right = geometry.rankAt(row, column + 1);
                if (right >= 0 && right / gpn != rank / gpn)
                    painter.drawLine(r.right(), r.top(), r.right(), r.bottom());
                if (smallCells)
                    continue;
                const int below = (row + 1) % geometry.rowsPerBand() != 0 ? geometry.rankAt(row + 1, column) : -1;
                if (below >= 0 && below / gpn != rank / gpn)
                    painter.drawLine(r.left(), r.bottom(), r.right(), r.bottom());
            }
        }
    }

    // Hover and selection outlines on top.
    const auto outline = [&](int rank, const QColor& colour, int width) {
        if (rank < 0)
            return;
        const QRect r = geometry.rankRect(rank);
        if (!r.intersects(exposed))
            return;
        QPen pen(colour);
        pen.setWidth(width);
        pen.setJoinStyle(Qt::MiterJoin);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(width / 2, width / 2, -(width + 1) / 2, -(width + 1) / 2));
    };
    outline(style.hoveredRank, palette.color(QPalette::Highlight), std::max(1, std::min(3, cell / 5)));
    outline(style.selectedRank, text, std::max(2, std::min(4, cell / 4)));
    painter.restore();
}

} // namespace stratex::ui
