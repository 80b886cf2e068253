// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include <QAbstractScrollArea>

#include "ui/ranks/rank_grid_painter.h"
#include "ui/ranks/rank_grid_view.h"

namespace stratex::ui {

// The rank grid, painted with QPainter (never one widget per rank): a band per pipeline stage,
// cells coloured by the group of the chosen kind, node boundaries, the tracer's ranks marked.
// Ctrl+wheel / +/- zoom around the cursor, 0 fits (and a fitted grid re-fits on resize), the scroll
// bars pan while the stage labels stay pinned at the left; hover shows a rank's coordinates and
// groups; a click selects a rank and highlights its group of the highlight kind. Rank numbers are
// drawn on every cell that holds them.
class RankGridWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kMinCellSize = 2;
    static constexpr int kMaxCellSize = 64;

    explicit RankGridWidget(QWidget* parent = nullptr);

    void setView(std::shared_ptr<const RankGridView> view);
    // The laid-out grid, one cell per rank (what the details and exports describe).
    const RankGridView* view() const { return m_detail.get(); }
    // What the grid draws: view(), or its overview (one cell per TP group) in overview mode.
    const RankGridView* shownView() const { return m_view.get(); }

    // Overview mode for thousands of ranks: one cell per tensor-parallel group, numbered by its
    // first rank; a double-click (or Enter on the selection) expands a group into its ranks.
    bool isOverview() const { return m_overview; }
    void setOverview(bool overview);
    // Leaves the overview with `rank`'s cell readable, under `anchor` (viewport) or centred.
    void expandAt(int rank, QPoint anchor = QPoint(-1, -1));
    // Whether the whole grid, one cell per rank, fits the viewport with cells of `minCell` or more.
    bool detailFits(int minCell) const;

    ranks::GroupKind colourKind() const { return m_style.colourKind; }
    void setColourKind(ranks::GroupKind kind);
    ranks::GroupKind highlightKind() const { return m_style.highlightKind; }
    void setHighlightKind(ranks::GroupKind kind);

    int selectedRank() const { return m_style.selectedRank; }
    void setSelectedRank(int rank);
    int cellSize() const { return m_style.cellSize; }
    int columns() const;
    RankGridGeometry geometry() const; // of the current view; only valid while view() is set
    // A zoom by hand: the grid keeps this size until the next fit. The anchor (viewport) stays
    // over the same content point; by default the cursor where it is over the grid, else the
    // selected rank where it is in view, else the centre.
    void setCellSize(int size, QPoint anchor = QPoint(-1, -1));
    void zoomIn();
    void zoomOut();
    // Fits the grid to the viewport; a fitted grid fits again whenever the viewport resizes.
    void zoomToFit();
    bool isFitted() const { return m_fitted; }
    // Width of the label column pinned at the left of the viewport (stage labels).
    int pinnedLabelWidth() const { return RankGridGeometry::kLabelWidth; }

    // Content coordinates of a rank's cell (for tests and scrolling to a rank).
    QRect rankRect(int rank) const;
    QPoint viewportPointOf(int rank) const; // centre of the rank's cell in viewport coordinates
    int rankAtViewport(QPoint point) const;
    QString toolTipFor(int rank) const;

    // Renders the whole grid (not just the visible part) for PNG/SVG export. Chooses a cell size
    // that keeps the image within `maxSide` pixels.
    QSize exportSize(int maxSide) const;
    void renderAll(QPainter& painter, int cellSize) const; // at the current column count
    int exportCellSize(int maxSide) const;

Q_SIGNALS:
    void rankSelected(int rank);
    void rankHovered(int rank);
    void overviewChanged(bool overview);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void updateScrollBars();
    QPoint scrollOffset() const;
    RankGridStyle currentStyle() const;
    void applyCellSize(int size, QPoint anchor);
    QPoint zoomAnchor() const;
    int zoomStep(int size, int steps) const;
    void paintPinnedLabels(QPainter& painter);

    std::shared_ptr<const RankGridView> m_detail;
    std::shared_ptr<const RankGridView> m_overviewView; // built when first shown
    std::shared_ptr<const RankGridView> m_view; // m_detail or m_overviewView
    bool m_overview = false;
    bool m_fitted = false;
    QPoint m_mouse { -1, -1 }; // the cursor over the viewport; (-1, -1) when outside
    RankGridStyle m_style;
    // A fit asked for while hidden: a hidden page of the window's stack keeps a stale size, so
    // the fit waits until the grid is shown and laid out.
    bool m_fitWhenShown = false;
};

} // namespace stratex::ui
