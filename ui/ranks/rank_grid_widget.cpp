// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/rank_grid_widget.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

namespace stratex::ui {

using namespace stratex::ranks;

namespace {
QString membersText(const std::vector<int>& members)
{
    constexpr std::size_t kShown = 8;
    if (members.empty())
        return QStringLiteral("—");
    QStringList parts;
    for (std::size_t i = 0; i < std::min(members.size(), kShown); ++i)
        parts << QString::number(members[i]);
    QString text = parts.join(QLatin1Char(','));
    if (members.size() > kShown)
        text += QStringLiteral(",… (%1 ranks)").arg(members.size());
    return QLatin1Char('[') + text + QLatin1Char(']');
}
} // namespace

RankGridWidget::RankGridWidget(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(240, 160);
    setAccessibleName(tr("Rank grid"));
}

void RankGridWidget::setView(std::shared_ptr<const RankGridView> view)
{
    if (!m_detail || !view || view->ranksPerBand != m_detail->ranksPerBand)
        m_style.columns = 0; // a new band size: back to the default wrapping until the next fit
    m_detail = std::move(view);
    m_overviewView.reset();
    if (m_overview && m_detail && m_detail->grid.sizes().tp > 1)
        m_overviewView = std::make_shared<const RankGridView>(overviewOf(*m_detail));
    m_view = m_overviewView ? m_overviewView : m_detail;
    m_style.hoveredRank = -1;
    if (!m_view || m_style.selectedRank >= m_view->world())
        m_style.selectedRank = -1;
    updateScrollBars();
    viewport()->update();
    if (m_fitted && isVisible())
        zoomToFit();
}

void RankGridWidget::setOverview(bool overview)
{
    if (overview == m_overview)
        return;
    m_overview = overview;
    m_style.columns = 0;
    setView(m_detail);
    Q_EMIT overviewChanged(m_overview);
}

bool RankGridWidget::detailFits(int minCell) const
{
    if (!m_detail)
        return true;
    return RankGridGeometry::fit(*m_detail, viewport()->size(), kMinCellSize, kMaxCellSize).second >= minCell;
}

void RankGridWidget::expandAt(int rank, QPoint anchor)
{
    if (!m_detail || rank < 0 || rank >= m_detail->world())
        return;
    setOverview(false);
    m_style.selectedRank = rank;
    // Cells that hold the largest rank's number, at least.
    int size = std::max(m_style.cellSize, 12);
    while (size < kMaxCellSize && !rankNumbersFit(font(), size, m_detail->world() - 1))
        ++size;
    m_fitted = false;
    m_fitWhenShown = false;
    m_style.cellSize = size;
    updateScrollBars();
    if (anchor.x() < 0)
        anchor = viewport()->rect().center();
    const QPoint centre = rankRect(rank).center();
    horizontalScrollBar()->setValue(centre.x() - anchor.x());
    verticalScrollBar()->setValue(centre.y() - anchor.y());
    viewport()->update();
    Q_EMIT rankSelected(rank);
}

void RankGridWidget::setColourKind(GroupKind kind)
{
    m_style.colourKind = kind;
    viewport()->update();
}

void RankGridWidget::setHighlightKind(GroupKind kind)
{
    m_style.highlightKind = kind;
    viewport()->update();
}

void RankGridWidget::setSelectedRank(int rank)
{
    if (!m_view || rank >= m_view->world())
        rank = -1;
    if (rank >= 0 && m_view->isOverview()) // an overview cell stands for its group's first rank
        rank = m_view->rankInBand(m_view->stageOf(rank), m_view->indexInBand[std::size_t(rank)]);
    if (rank == m_style.selectedRank)
        return;
    m_style.selectedRank = rank;
    viewport()->update();
    Q_EMIT rankSelected(rank);
}

void RankGridWidget::setCellSize(int size, QPoint anchor)
{
    m_fitWhenShown = false; // a size chosen by hand wins over a pending fit
    m_fitted = false; // and over the fit on resize
    applyCellSize(size, anchor.x() < 0 ? zoomAnchor() : anchor);
}

QPoint RankGridWidget::zoomAnchor() const
{
    // Issue 24, finding 10: the zoom buttons and keys zoomed at the centre, away from where the
    // user looks.
    const QRect area = viewport()->rect();
    if (area.contains(m_mouse))
        return m_mouse;
    if (m_style.selectedRank >= 0 && m_view) {
        const QPoint selected = viewportPointOf(m_style.selectedRank);
        if (area.contains(selected))
            return selected;
    }
    return area.center();
}

int RankGridWidget::zoomStep(int size, int steps) const
{
    // A factor of √2 a step: from a 2 px fit to numbers in about seven steps.
    const double factor = std::pow(std::sqrt(2.0), steps);
    const int next = int(std::lround(size * factor));
    return steps > 0 ? std::max(size + 1, next) : std::min(size - 1, next);
}

void RankGridWidget::zoomIn()
{
    setCellSize(zoomStep(m_style.cellSize, 1));
}

void RankGridWidget::zoomOut()
{
    setCellSize(zoomStep(m_style.cellSize, -1));
}

void RankGridWidget::applyCellSize(int size, QPoint anchor)
{
    size = std::clamp(size, kMinCellSize, kMaxCellSize);
    if (size == m_style.cellSize)
        return;
    // Keep the content point under the anchor where it is (zoom around the cursor): held in grid
    // units (its band, its height within the band's cells, its column), since the gaps between
    // bands and the margins do not scale with the cells.
    const QPointF content = QPointF(anchor + scrollOffset());
    const int old = m_style.cellSize;
    const int rows = m_view && old > 0 ? geometry().rowsPerBand() : 0;
    const int stages = m_view ? m_view->stages() : 1;
    const auto bandPitch = [&](int cell) { return double(rows * cell + RankGridGeometry::kBandGap); };
    int stage = 0;
    double withinBand = 0; // 0 at the band's top, 1 at its bottom
    double column = 0;
    if (rows > 0) {
        const double y = content.y() - RankGridGeometry::kMargin;
        stage = std::clamp(int(std::floor(y / bandPitch(old))), 0, stages - 1);
        withinBand = std::clamp((y - stage * bandPitch(old)) / double(rows * old), 0.0, 1.0);
        column = (content.x() - RankGridGeometry::kLabelWidth) / double(old);
    }
    m_style.cellSize = size;
    updateScrollBars();
    if (rows > 0) {
        const double x = RankGridGeometry::kLabelWidth + column * size;
        const double y = RankGridGeometry::kMargin + stage * bandPitch(size) + withinBand * rows * size;
        horizontalScrollBar()->setValue(int(std::lround(x)) - anchor.x());
        verticalScrollBar()->setValue(int(std::lround(y)) - anchor.y());
    }
    viewport()->update();
}

void RankGridWidget::zoomToFit()
{
    if (!m_view)
        return;
    m_fitWhenShown = !isVisible();
    if (m_fitWhenShown)
        return;
    const auto [columns, cell] = RankGridGeometry::fit(*m_view, viewport()->size(), kMinCellSize, kMaxCellSize);
    m_style.columns = columns;
    m_style.cellSize = 0; // force the change signal
    applyCellSize(cell, QPoint(0, 0));
    horizontalScrollBar()->setValue(0);
    verticalScrollBar()->setValue(0);
    m_fitted = true;
}

int RankGridWidget::columns() const
{
    return m_view ? geometry().columns() : 0;
}

RankGridGeometry RankGridWidget::geometry() const
{
    return RankGridGeometry(*m_view, m_style.cellSize, m_style.columns);
}

QRect RankGridWidget::rankRect(int rank) const
{
    if (!m_view || rank < 0 || rank >= m_view->world())
        return {};
    return geometry().rankRect(rank);
}

QPoint RankGridWidget::viewportPointOf(int rank) const
{
    return rankRect(rank).center() - scrollOffset();
}

int RankGridWidget::rankAtViewport(QPoint point) const
{
    if (!m_view)
        return -1;
    return geometry().rankAt(point + scrollOffset());
}

QString RankGridWidget::toolTipFor(int rank) const
{
    if (!m_view || rank < 0)
        return {};
    const RankGrid& grid = m_view->grid;
    const RankCoordinates c = grid.coordinates(rank);
    QString text;
    if (m_view->isOverview()) {
        const std::vector<int> members = grid.groupOf(GroupKind::Tp, rank);
        const auto [low, high] = std::minmax_element(members.begin(), members.end());
        text = tr("<b>TP group of ranks %1–%2</b> (%3 ranks; double-click to expand)<br>")
                   .arg(*low)
                   .arg(*high)
                   .arg(members.size());
    }
    text += QStringLiteral("<b>Rank %1</b> — node %2, local rank %3").arg(rank).arg(c.node).arg(c.localRank);
    if (m_view->traced[std::size_t(rank)])
        text += tr(" · <i>traced</i>");
    text += QStringLiteral("<br>tp %1 · cp %2 · dp %3 · pp %4 &nbsp; expert: etp %5 · ep %6 · edp %7")
                .arg(c.tp)
                .arg(c.cp)
                .arg(c.dp)
                .arg(c.pp)
                .arg(c.etp)
                .arg(c.ep)
                .arg(c.edp);
    text += QStringLiteral("<table>");
    for (GroupKind kind : kAllGroupKinds) {
        text += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>")
                    .arg(QString::fromUtf8(groupKindName(kind).data()), membersText(grid.groupOf(kind, rank)));
    }
    return text + QStringLiteral("</table>");
}

QSize RankGridWidget::exportSize(int maxSide) const
{
    if (!m_view)
        return {};
    return RankGridGeometry(*m_view, exportCellSize(maxSide), m_style.columns).contentSize();
}

int RankGridWidget::exportCellSize(int maxSide) const
{
    if (!m_view)
        return m_style.cellSize;
    int size = std::max(m_style.cellSize, 12);
    while (size > kMinCellSize) {
        const QSize content = RankGridGeometry(*m_view, size, m_style.columns).contentSize();
        if (std::max(content.width(), content.height()) <= maxSide)
            break;
        --size;
    }
    return size;
}

void RankGridWidget::renderAll(QPainter& painter, int cellSize) const
{
    if (!m_view)
        return;
    RankGridStyle style = currentStyle();
    style.cellSize = cellSize;
    style.hoveredRank = -1;
    paintRankGrid(painter, *m_view, style,
        QRect(QPoint(0, 0), RankGridGeometry(*m_view, cellSize, m_style.columns).contentSize()));
}

RankGridStyle RankGridWidget::currentStyle() const
{
    RankGridStyle style = m_style;
    style.palette = palette();
    return style;
}

QPoint RankGridWidget::scrollOffset() const
{
    return QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
}

void RankGridWidget::updateScrollBars()
{
    const QSize content = m_view ? geometry().contentSize() : QSize();
    const QSize area = viewport()->size();
    horizontalScrollBar()->setRange(0, std::max(0, content.width() - area.width()));
    verticalScrollBar()->setRange(0, std::max(0, content.height() - area.height()));
    horizontalScrollBar()->setPageStep(area.width());
    verticalScrollBar()->setPageStep(area.height());
    horizontalScrollBar()->setSingleStep(std::max(1, m_style.cellSize));
    verticalScrollBar()->setSingleStep(std::max(1, m_style.cellSize));
}

void RankGridWidget::paintEvent(QPaintEvent* event)
{
    QPainter painter(viewport());
    painter.setFont(font());
    if (!m_view) {
        painter.fillRect(event->rect(), palette().color(QPalette::Base));
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(viewport()->rect(), Qt::AlignCenter, tr("Enter a valid parallel configuration"));
        return;
    }
    const QPoint offset = scrollOffset();
    painter.translate(-offset);
    paintRankGrid(painter, *m_view, currentStyle(), event->rect().translated(offset));
    painter.resetTransform();
    paintPinnedLabels(painter);
}

void RankGridWidget::paintPinnedLabels(QPainter& painter)
{
    // The stage labels stay at the left edge however far the grid scrolls, and each stays inside
    // the visible part of its band (issue 24, finding 10: they scrolled away with the cells). The
    // column is painted over the content's own labels, which an export keeps.
    const QPoint offset = scrollOffset();
    const RankGridGeometry geometry = this->geometry();
    const int width = RankGridGeometry::kLabelWidth;
    const QRect column(0, 0, width - 2, viewport()->height());
    painter.fillRect(column, palette().color(QPalette::Base));
    if (offset.x() > 0) {
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawLine(column.topRight(), column.bottomRight());
    }
    const int line = QFontMetrics(font()).height();
    painter.setPen(palette().color(QPalette::Text));
    for (int stage = 0; stage < m_view->stages(); ++stage) {
        const QRect band = geometry.bandRect(stage).translated(-offset);
        const QRect visible = band.intersected(QRect(QPoint(0, 0), viewport()->size()));
        if (visible.height() <= 0)
            continue;
        const QRect label(RankGridGeometry::kMargin, visible.top(), width - 10, std::max(visible.height(), line));
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("stage %1").arg(stage));
    }
}

void RankGridWidget::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
    // Issue 24, finding 11: at 1280×800 the grid kept the size it was fitted to at another size.
    if (m_fitted && m_view && isVisible())
        zoomToFit();
}

void RankGridWidget::showEvent(QShowEvent* event)
{
    QAbstractScrollArea::showEvent(event);
    if (m_fitWhenShown) {
        // After the layouts have given the viewport its size.
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (m_fitWhenShown)
                    zoomToFit();
            },
            Qt::QueuedConnection);
    }
}

bool RankGridWidget::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int rank = rankAtViewport(help->pos());
        if (rank >= 0)
            QToolTip::showText(
                help->globalPos(), toolTipFor(rank), viewport(), rankRect(rank).translated(-scrollOffset()));
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void RankGridWidget::mouseMoveEvent(QMouseEvent* event)
{
    m_mouse = event->position().toPoint();
    const int rank = rankAtViewport(event->position().toPoint());
    if (rank != m_style.hoveredRank) {
        m_style.hoveredRank = rank;
        viewport()->update();
        Q_EMIT rankHovered(rank);
    }
    QAbstractScrollArea::mouseMoveEvent(event);
}

void RankGridWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        const int rank = rankAtViewport(event->position().toPoint());
        // Clicking the selected rank again clears the selection.
        setSelectedRank(rank == m_style.selectedRank ? -1 : rank);
        event->accept();
        return;
    }
    QAbstractScrollArea::mousePressEvent(event);
}

void RankGridWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_overview) {
        const int rank = rankAtViewport(event->position().toPoint());
        if (rank >= 0) {
            expandAt(rank, event->position().toPoint());
            event->accept();
            return;
        }
    }
    QAbstractScrollArea::mouseDoubleClickEvent(event);
}

void RankGridWidget::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const int steps = event->angleDelta().y() / 120;
        if (steps != 0) {
            const int size = m_style.cellSize;
            const int next = steps > 0 ? std::max(size + 1, int(std::lround(size * std::pow(1.25, steps))))
                                       : std::min(size - 1, int(std::lround(size * std::pow(0.8, -steps))));
            m_mouse = event->position().toPoint();
            setCellSize(next, m_mouse);
        }
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void RankGridWidget::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (m_overview && m_style.selectedRank >= 0)
            expandAt(m_style.selectedRank);
        return;
    case Qt::Key_0:
    case Qt::Key_Home:
        zoomToFit();
        return;
    case Qt::Key_Escape:
        setSelectedRank(-1);
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

void RankGridWidget::leaveEvent(QEvent* event)
{
    m_mouse = QPoint(-1, -1);
    if (m_style.hoveredRank >= 0) {
        m_style.hoveredRank = -1;
        viewport()->update();
        Q_EMIT rankHovered(-1);
    }
    QAbstractScrollArea::leaveEvent(event);
}

} // namespace stratex::ui
