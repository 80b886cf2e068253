// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include <QAbstractScrollArea>

#include "ui/ranks/rank_grid_painter.h"
#include "ui/ranks/rank_grid_view.h"

namespace stratex::ui {

// The rank grid, painted with QPainter (never one widget per rank): a band per pipeline stage,
// cells coloured by the group of the chosen kind, node boundaries, the tracer's ranks marked.
// Ctrl+wheel / +/- zoom around the cursor, 0 fits, the scroll bars pan; hover shows a rank's
// coordinates and groups; a click selects a rank and highlights its group of the highlight kind.
class RankGridWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kMinCellSize = 2;
    static constexpr int kMaxCellSize = 64;

    explicit RankGridWidget(QWidget* parent = nullptr);

    void setView(std::shared_ptr<const RankGridView> view);
    const RankGridView* view() const { return m_view.get(); }

    ranks::GroupKind colourKind() const { return m_style.colourKind; }
    void setColourKind(ranks::GroupKind kind);
    ranks::GroupKind highlightKind() const { return m_style.highlightKind; }
    void setHighlightKind(ranks::GroupKind kind);

    int selectedRank() const { return m_style.selectedRank; }
    void setSelectedRank(int rank);
    int cellSize() const { return m_style.cellSize; }
    int columns() const;
    RankGridGeometry geometry() const; // of the current view; only valid while view() is set
    void setCellSize(int size, QPoint anchor = QPoint(-1, -1));
    void zoomToFit();

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

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void updateScrollBars();
    QPoint scrollOffset() const;
    RankGridStyle currentStyle() const;

    std::shared_ptr<const RankGridView> m_view;
    RankGridStyle m_style;
    // A fit asked for while hidden: a hidden page of the window's stack keeps a stale size, so
    // the fit waits until the grid is shown and laid out.
    bool m_fitWhenShown = false;
};

} // namespace stratex::ui
