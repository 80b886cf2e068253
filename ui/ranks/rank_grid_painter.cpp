// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/rank_grid_painter.h"

#include <array>
#include <functional>

#include <QFontMetrics>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>

#include "ui/common/categorical_palette.h"
#include "ui/ranks/rank_grid_view.h"

namespace stratex::ui {

using ranks::GroupKind;

RankGridGeometry::RankGridGeometry(const RankGridView& view, int cellSize, int columns)
    : m_view(view)
    , m_cellSize(std::max(1, cellSize))
    , m_columns(columns > 0 ? std::min(columns, view.ranksPerBand) : gridColumns(view.ranksPerBand, view.nodeCells()))
    , m_rowsPerBand((view.ranksPerBand + m_columns - 1) / m_columns)
{
}

std::pair<int, int> RankGridGeometry::fit(const RankGridView& view, QSize area, int minCell, int maxCell)
{
    const int stages = view.stages();
    const int node = view.nodeCells();
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

void RankGridGeometry::visibleCells(
    const QRect& area, int& firstRow, int& lastRow, int& firstColumn, int& lastColumn) const
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

// Everything that decides a cell's fill, resolved once per paint so the per-cell work is a few
// array reads.
class CellFill {
public:
    CellFill(const RankGridView& view, const RankGridStyle& style)
        : m_colourIndex(view.groupIndex[std::size_t(style.colourKind)])
        , m_highlightIndex(view.groupIndex[std::size_t(style.highlightKind)])
        , m_selectedRank(style.selectedRank)
        , m_selectedGroup(style.selectedRank >= 0 ? m_highlightIndex[std::size_t(style.selectedRank)] : -1)
    {
        const QColor background = style.palette.color(QPalette::Base);
        for (int i = 0; i < kCategoricalColorCount; ++i) {
            m_normal[std::size_t(i)] = categoricalColor(i).rgb();
            m_dimmed[std::size_t(i)] = dimmed(categoricalColor(i), background).rgb();
        }
        const QColor noGroup = style.palette.color(QPalette::Mid);
        m_normal[kCategoricalColorCount] = noGroup.rgb();
        m_dimmed[kCategoricalColorCount] = dimmed(noGroup, background).rgb();
    }

    QRgb operator()(int rank) const
    {
        const int group = m_colourIndex[std::size_t(rank)];
        const std::size_t slot = group >= 0 ? std::size_t(group % kCategoricalColorCount) : kCategoricalColorCount;
        const bool active = m_selectedRank < 0 || rank == m_selectedRank
            || (m_selectedGroup >= 0 && m_highlightIndex[std::size_t(rank)] == m_selectedGroup);
        return active ? m_normal[slot] : m_dimmed[slot];
    }

private:
    const std::vector<int>& m_colourIndex;
    const std::vector<int>& m_highlightIndex;
    int m_selectedRank;
    int m_selectedGroup;
    std::array<QRgb, kCategoricalColorCount + 1> m_normal {};
    std::array<QRgb, kCategoricalColorCount + 1> m_dimmed {};
};

struct VisibleCells {
    int firstRow = 0;
    int lastRow = -1;
    int firstColumn = 0;
    int lastColumn = -1;
};

// Raster fast path: writes the cell blocks straight into an image of the exposed area. A QPainter
// call per cell costs more than the pixels of a small cell.
void fillCellsRaster(QPainter& painter, const RankGridGeometry& geometry, const VisibleCells& cells,
    const CellFill& fill, const QRect& exposed, int gap, const std::function<void(QPainter&)>& underlay)
{
    // Premultiplied ARGB is what raster back buffers use, so drawImage() below is a plain copy.
    QImage image(exposed.size(), QImage::Format_ARGB32_Premultiplied);
    {
        QPainter background(&image);
        background.translate(-exposed.topLeft());
        underlay(background);
    }
    uchar* const bits = image.bits(); // detaches once, not per scan line
    const qsizetype stride = image.bytesPerLine();
    for (int row = cells.firstRow; row <= cells.lastRow; ++row) {
        for (int column = cells.firstColumn; column <= cells.lastColumn; ++column) {
            const int rank = geometry.rankAt(row, column);
            if (rank < 0)
                continue;
            const QRect r = geometry.cellRect(row, column)
                                .adjusted(0, 0, -gap, -gap)
                                .intersected(exposed)
                                .translated(-exposed.topLeft());
            if (r.isEmpty())
                continue;
            const QRgb colour = fill(rank);
            for (int y = r.top(); y <= r.bottom(); ++y) {
                auto* line = reinterpret_cast<QRgb*>(bits + y * stride);
                std::fill(line + r.left(), line + r.right() + 1, colour);
            }
        }
    }
    painter.drawImage(exposed.topLeft(), image);
}

// Vector path (SVG export, scaled or high-DPI painters): one rectangle per cell.
void fillCellsVector(
    QPainter& painter, const RankGridGeometry& geometry, const VisibleCells& cells, const CellFill& fill, int gap)
{
    for (int row = cells.firstRow; row <= cells.lastRow; ++row) {
        for (int column = cells.firstColumn; column <= cells.lastColumn; ++column) {
            const int rank = geometry.rankAt(row, column);
            if (rank >= 0)
                painter.fillRect(
                    geometry.cellRect(row, column).adjusted(0, 0, -gap, -gap), QColor::fromRgb(fill(rank)));
        }
    }
}

bool canPaintRaster(const QPainter& painter)
{
    return painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster
        && painter.device()->devicePixelRatioF() == 1.0 && painter.transform().type() <= QTransform::TxTranslate;
}

// A line wherever two neighbouring cells sit on different nodes. Small cells get thin, muted,
// vertical-only lines so the boundaries stay readable instead of hatching the grid. Segments that
// continue each other are merged: a few long lines instead of one per cell edge.
void drawNodeBoundaries(QPainter& painter, const RankGridView& view, const RankGridGeometry& geometry,
    const VisibleCells& cells, const QPalette& palette)
{
    const int cell = geometry.cellSize();
    const int gpn = view.grid.gpusPerNode();
    const bool smallCells = cell < 6;
    if (smallCells && cell * view.nodeCells() < 16)
        return;
    std::vector<QLine> lines;
    const int columnCount = cells.lastColumn - cells.firstColumn + 1;
    // Open vertical runs per column boundary: the first row of the run, or -1.
    std::vector<int> verticalRunStart(std::size_t(std::max(0, columnCount)), -1);
    const auto closeVertical = [&](int column, int lastRow) {
        int& start = verticalRunStart[std::size_t(column - cells.firstColumn)];
        if (start < 0)
            return;
        const int x = geometry.cellRect(start, column).right();
        lines.emplace_back(x, geometry.cellRect(start, column).top(), x, geometry.cellRect(lastRow, column).bottom());
        start = -1;
    };
    for (int row = cells.firstRow; row <= cells.lastRow; ++row) {
        const bool bandEnds = (row + 1) % geometry.rowsPerBand() == 0;
        int horizontalRunStart = -1;
        for (int column = cells.firstColumn; column <= cells.lastColumn; ++column) {
            const int rank = geometry.rankAt(row, column);
            const int right = rank >= 0 ? geometry.rankAt(row, column + 1) : -1;
            if (right >= 0 && right / gpn != rank / gpn) {
                int& start = verticalRunStart[std::size_t(column - cells.firstColumn)];
                if (start < 0)
                    start = row;
            } else {
                closeVertical(column, row - 1);
            }
            const int below = rank >= 0 && !bandEnds && !smallCells ? geometry.rankAt(row + 1, column) : -1;
            const bool boundaryBelow = below >= 0 && below / gpn != rank / gpn;
            if (boundaryBelow && horizontalRunStart < 0)
                horizontalRunStart = column;
            if ((!boundaryBelow || column == cells.lastColumn) && horizontalRunStart >= 0) {
                const int lastColumn = boundaryBelow ? column : column - 1;
                const int y = geometry.cellRect(row, horizontalRunStart).bottom();
                lines.emplace_back(geometry.cellRect(row, horizontalRunStart).left(), y,
                    geometry.cellRect(row, lastColumn).right(), y);
                horizontalRunStart = -1;
            }
        }
        if (bandEnds) {
            for (int column = cells.firstColumn; column <= cells.lastColumn; ++column)
                closeVertical(column, row);
        }
    }
    for (int column = cells.firstColumn; column <= cells.lastColumn; ++column)
        closeVertical(column, cells.lastRow);

    QPen pen(smallCells ? palette.color(QPalette::Dark) : palette.color(QPalette::Text));
    pen.setWidth(cell >= 12 ? 2 : 1);
    painter.setPen(pen);
    painter.drawLines(lines.data(), int(lines.size()));
}

// The font rank numbers are drawn in and the widest number it fits: the widget's font, made
// smaller for small cells down to a readable floor (issue 24, finding 10: numbers appeared only
// from 30 px cells, 11 zoom clicks from the fit at 8,192 ranks).
struct NumberFont {
    QFont font;
    std::array<int, 8> widthOfDigits {}; // pixel width of an n-digit number, n = 1..7
    int height = 0;

    NumberFont(const QFont& base, int cell)
        : font(base)
    {
        constexpr int kSmallestPixels = 8;
        const int pixels = std::max(kSmallestPixels, std::min(QFontMetrics(base).height() - 2, cell - 4));
        font.setPixelSize(pixels);
        const QFontMetrics metrics(font);
        height = metrics.height();
        for (int digits = 1; digits < int(widthOfDigits.size()); ++digits)
            widthOfDigits[std::size_t(digits)] = metrics.horizontalAdvance(QString(digits, QLatin1Char('8')));
    }
    bool fits(int number, const QRect& cell) const
    {
        const int digits = int(QString::number(number).size());
        return digits < int(widthOfDigits.size()) && widthOfDigits[std::size_t(digits)] + 2 <= cell.width()
            && height <= cell.height() + 2;
    }
};

} // namespace

bool rankNumbersFit(const QFont& font, int cellSize, int largestRank)
{
    const NumberFont numbers(font, cellSize);
    return numbers.fits(
        largestRank, QRect(0, 0, cellSize - (cellSize >= 6 ? 1 : 0), cellSize - (cellSize >= 6 ? 1 : 0)));
}

namespace {

// The tracer's ranks: a corner mark, or the whole cell in the text colour when too small for one.
// Rank numbers (an overview cell's first rank) on every cell that holds them.
void drawCellDecorations(QPainter& painter, const RankGridView& view, const RankGridGeometry& geometry,
    const VisibleCells& cells, const CellFill& fill, const QPalette& palette, int gap)
{
    const int cell = geometry.cellSize();
    const QColor text = palette.color(QPalette::Text);
    const NumberFont numbers(painter.font(), cell);
    // All or none: the largest rank's number decides, so a zoom never numbers only some cells.
    const bool anyNumber = numbers.fits(view.world() - 1, QRect(0, 0, cell - gap, cell - gap));
    painter.save();
    painter.setFont(numbers.font);
    for (int row = cells.firstRow; row <= cells.lastRow; ++row) {
        for (int column = cells.firstColumn; column <= cells.lastColumn; ++column) {
            const int rank = geometry.rankAt(row, column);
            if (rank < 0)
                continue;
            const bool traced = view.traced[std::size_t(rank)] != 0;
            if (!traced && !anyNumber)
                continue;
            const QRect r = geometry.cellRect(row, column).adjusted(0, 0, -gap, -gap);
            const QColor contrast = contrastingTextColor(QColor::fromRgb(fill(rank)));
            if (traced && cell >= 8) {
                const int dot = std::max(3, cell / 3);
                painter.fillRect(QRect(r.right() - dot, r.top() + 1, dot, dot), contrast);
            } else if (traced) {
                painter.fillRect(r, text);
            }
            if (anyNumber) {
                painter.setPen(contrast);
                painter.drawText(r, Qt::AlignCenter, QString::number(rank));
            }
        }
    }
    painter.restore();
}

} // namespace

void paintRankGrid(QPainter& painter, const RankGridView& view, const RankGridStyle& style, const QRect& exposed)
{
    const RankGridGeometry geometry(view, style.cellSize, style.columns);
    const QPalette& palette = style.palette;
    const int cell = geometry.cellSize();
    const int gap = cell >= 6 ? 1 : 0;

    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);

    const auto underlay = [&](QPainter& p) {
        p.fillRect(exposed, palette.color(QPalette::Base));
        for (int stage = 0; stage < view.stages(); ++stage) {
            const QRect band = geometry.bandRect(stage).adjusted(-2, -2, 2, 2);
            if (band.intersects(exposed))
                p.fillRect(band, palette.color(QPalette::AlternateBase));
        }
    };

    VisibleCells cells;
    geometry.visibleCells(exposed, cells.firstRow, cells.lastRow, cells.firstColumn, cells.lastColumn);
    const CellFill fill(view, style);
    if (canPaintRaster(painter) && !exposed.isEmpty()) {
        fillCellsRaster(painter, geometry, cells, fill, exposed, gap, underlay);
    } else {
        underlay(painter);
        fillCellsVector(painter, geometry, cells, fill, gap);
    }

    // Stage labels.
    painter.setPen(palette.color(QPalette::Text));
    for (int stage = 0; stage < view.stages(); ++stage) {
        const QRect band = geometry.bandRect(stage);
        const QRect label(RankGridGeometry::kMargin, band.top(), RankGridGeometry::kLabelWidth - 10,
            std::max(band.height(), painter.fontMetrics().height()));
        if (label.intersects(exposed))
            painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("stage %1").arg(stage));
    }

    drawNodeBoundaries(painter, view, geometry, cells, palette);
    drawCellDecorations(painter, view, geometry, cells, fill, palette, gap);

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
    outline(style.selectedRank, palette.color(QPalette::Text), std::max(2, std::min(4, cell / 4)));
    painter.restore();
}

} // namespace stratex::ui
