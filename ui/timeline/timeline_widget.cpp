// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_widget.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QLineEdit>

#include <cmath>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

namespace stratex::ui {

using sim::OpKind;

namespace {
constexpr int kScrollResolution = 100000; // horizontal scroll bar steps over the whole trace
constexpr double kKeyZoomFactor = 1.5;
constexpr double kKeyPanFraction = 0.2;
constexpr double kHitTolerancePixels = 2.0;

QString milliseconds(double us)
{
    return QLocale::c().toString(us / 1000.0, 'f', us < 10000 ? 3 : 2) + QStringLiteral(" ms");
}
} // namespace

TimelineWidget::TimelineWidget(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 160);
    setAccessibleName(tr("Pipeline timeline"));
    horizontalScrollBar()->setRange(0, 0);
}

void TimelineWidget::setDocument(std::shared_ptr<const controllers::TimelineDocument> document)
{
    m_document = std::move(document);
    m_style.selectedMicrobatch = -1;
    m_style.zoom.setTrace({ 0, m_document ? std::max(1.0, m_document->makespanUs()) : 1.0 });
    updateScrollBars();
    viewport()->update();
    Q_EMIT visibleRangeChanged(m_style.zoom.visible());
}

int TimelineWidget::trackWidth() const
{
    return std::max(1, viewport()->width() - TimelineGeometry::kLabelWidth);
}

double TimelineWidget::timeAtX(double viewportX) const
{
    return m_style.zoom.mapXToTime(viewportX - TimelineGeometry::kLabelWidth, trackWidth());
}

double TimelineWidget::xOfTime(double time_us) const
{
    return TimelineGeometry::kLabelWidth + m_style.zoom.mapTimeToX(time_us, trackWidth());
}

QPoint TimelineWidget::viewportPointOf(int plan, int device, TimelineLane lane, double time_us) const
{
    if (!m_document)
        return {};
    const QRect rect = TimelineGeometry(*m_document).lane(plan, device, lane, trackWidth());
    return QPoint(
        int(std::lround(xOfTime(time_us))), rect.center().y() + TimelineGeometry::kRulerHeight - m_style.scrollY);
}

void TimelineWidget::zoomAround(double anchor_us, double factor)
{
    m_style.zoom.zoomAround(anchor_us, factor);
    updateScrollBars();
    viewport()->update();
    Q_EMIT visibleRangeChanged(m_style.zoom.visible());
}

void TimelineWidget::fit()
{
    m_style.zoom.fit();
    updateScrollBars();
    viewport()->update();
    Q_EMIT visibleRangeChanged(m_style.zoom.visible());
}

void TimelineWidget::zoomStep(double factor, std::optional<double> anchorX)
{
    const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
    double x = anchorX.value_or(viewport()->rect().contains(cursor) && cursor.x() > TimelineGeometry::kLabelWidth
            ? double(cursor.x())
            : TimelineGeometry::kLabelWidth + trackWidth() / 2.0);
    zoomAround(timeAtX(x), factor);
}

void TimelineWidget::setSelectedMicrobatch(int microbatch)
{
    if (microbatch == m_style.selectedMicrobatch)
        return;
    m_style.selectedMicrobatch = microbatch;
    viewport()->update();
    Q_EMIT microbatchSelected(microbatch);
}

std::optional<TimelineWidget::OpHit> TimelineWidget::opAt(QPoint point) const
{
    if (!m_document || point.x() < TimelineGeometry::kLabelWidth || point.y() < TimelineGeometry::kRulerHeight)
        return std::nullopt;
    const auto hit = TimelineGeometry(*m_document).hitAt(point.y() - TimelineGeometry::kRulerHeight + m_style.scrollY);
    if (!hit || hit->lane == TimelineLane::Memory)
        return std::nullopt;
    const controllers::TimelinePlanView& plan = m_document->plans[std::size_t(hit->plan)];
    const auto& lane = hit->lane == TimelineLane::Compute ? plan.timeline.devices[std::size_t(hit->device)].compute
        : hit->lane == TimelineLane::Send                 ? plan.sends[std::size_t(hit->device)]
                                                          : plan.recvs[std::size_t(hit->device)];
    const double tolerance = kHitTolerancePixels * m_style.zoom.visible().span() / trackWidth();
    const sim::TimelineOp* op = opAtTime(lane, timeAtX(point.x()), tolerance);
    if (!op)
        return std::nullopt;
    return OpHit { hit->plan, hit->device, hit->lane, *op };
}

QString TimelineWidget::toolTipFor(const OpHit& hit) const
{
    const sim::TimelineOp& op = hit.op;
    QString what;
    switch (op.kind) {
    case OpKind::Forward:
        what = tr("Forward");
        break;
    case OpKind::Backward:
        what = tr("Backward");
        break;
    case OpKind::Weight:
        what = tr("Weight gradient");
        break;
    case OpKind::Send:
        what
            = op.grad ? tr("Send gradient to device %1").arg(op.peer) : tr("Send activation to device %1").arg(op.peer);
        break;
    case OpKind::Recv:
        what = op.grad ? tr("Receive gradient from device %1").arg(op.peer)
                       : tr("Receive activation from device %1").arg(op.peer);
        break;
    }
    const double makespan = m_document->plans[std::size_t(hit.plan)].timeline.makespan_us;
    return tr("<b>%1</b> — micro-batch %2<br>stage %3%4 · device %5<br>start %6 · duration %7 (%8 % of the step)")
        .arg(what)
        .arg(op.microbatch)
        .arg(op.stage)
        .arg(op.chunk > 0 ? tr(" (chunk %1)").arg(op.chunk) : QString())
        .arg(hit.device)
        .arg(milliseconds(op.start_us), milliseconds(op.duration_us))
        .arg(QLocale::c().toString(makespan > 0 ? 100.0 * op.duration_us / makespan : 0.0, 'f', 1));
}

QSize TimelineWidget::renderSize() const
{
    const int rows = m_document ? TimelineGeometry(*m_document).contentHeight() : 0;
    return QSize(viewport()->width(), TimelineGeometry::kRulerHeight + rows);
}

void TimelineWidget::render(QPainter& painter) const
{
    if (!m_document)
        return;
    TimelineStyle style = m_style;
    style.scrollY = 0;
    style.palette = palette();
    paintTimeline(painter, *m_document, style, renderSize());
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    if (!m_document) {
        painter.fillRect(viewport()->rect(), palette().color(QPalette::Base));
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(viewport()->rect(), Qt::AlignCenter, tr("No timeline: simulate a plan or open a cases file"));
        return;
    }
    TimelineStyle style = m_style;
    style.palette = palette();
    paintTimeline(painter, *m_document, style, viewport()->size());
}

void TimelineWidget::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void TimelineWidget::updateScrollBars()
{
    m_updatingScrollBars = true;
    const int rows = m_document ? TimelineGeometry(*m_document).contentHeight() : 0;
    const int area = viewport()->height() - TimelineGeometry::kRulerHeight;
    verticalScrollBar()->setRange(0, std::max(0, rows - area));
    verticalScrollBar()->setPageStep(std::max(1, area));
    verticalScrollBar()->setSingleStep(TimelineGeometry::kDeviceHeight / 2);
    m_style.scrollY = verticalScrollBar()->value();

    const TimeRange trace = m_style.zoom.trace();
    const TimeRange visible = m_style.zoom.visible();
    const int page = int(std::lround(kScrollResolution * visible.span() / trace.span()));
    horizontalScrollBar()->setRange(0, kScrollResolution - page);
    horizontalScrollBar()->setPageStep(page);
    horizontalScrollBar()->setSingleStep(std::max(1, page / 10));
    horizontalScrollBar()->setValue(
        int(std::lround(kScrollResolution * (visible.start_us - trace.start_us) / trace.span())));
    m_updatingScrollBars = false;
}

void TimelineWidget::scrollContentsBy(int, int)
{
    if (m_updatingScrollBars)
        return;
    m_style.scrollY = verticalScrollBar()->value();
    const TimeRange trace = m_style.zoom.trace();
    const double span = m_style.zoom.visible().span();
    const double start = trace.start_us + trace.span() * horizontalScrollBar()->value() / kScrollResolution;
    m_style.zoom.setVisible({ start, start + span });
    viewport()->update();
    Q_EMIT visibleRangeChanged(m_style.zoom.visible());
}

bool TimelineWidget::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const auto hit = opAt(help->pos()))
            QToolTip::showText(help->globalPos(), toolTipFor(*hit), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ControlModifier) {
        zoomStep(std::pow(1.25, steps), event->position().x());
        event->accept();
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier) {
        m_style.zoom.pan(-steps * 0.1);
        updateScrollBars();
        viewport()->update();
        Q_EMIT visibleRangeChanged(m_style.zoom.visible());
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void TimelineWidget::enterEvent(QEnterEvent* event)
{
    QAbstractScrollArea::enterEvent(event);
    // Never from a field the user is typing in.
    QWidget* focused = QApplication::focusWidget();
    if (!qobject_cast<QLineEdit*>(focused) && !qobject_cast<QAbstractSpinBox*>(focused))
        setFocus(Qt::MouseFocusReason);
}

void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    const auto panBy = [this](double fraction) {
        m_style.zoom.pan(fraction);
        updateScrollBars();
        viewport()->update();
        Q_EMIT visibleRangeChanged(m_style.zoom.visible());
    };
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
        zoomStep(kKeyZoomFactor);
        return;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomStep(1.0 / kKeyZoomFactor);
        return;
    case Qt::Key_A:
    case Qt::Key_Left:
        panBy(-kKeyPanFraction);
        return;
    case Qt::Key_D:
    case Qt::Key_Right:
        panBy(kKeyPanFraction);
        return;
    case Qt::Key_0:
    case Qt::Key_Home:
        fit();
        return;
    case Qt::Key_Escape:
        setSelectedMicrobatch(-1);
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragStart = event->position().toPoint();
        m_dragStartTime = m_style.zoom.visible().start_us;
        m_dragged = false;
        event->accept();
        return;
    }
    QAbstractScrollArea::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragStart && (event->buttons() & Qt::LeftButton)) {
        const int dx = event->position().toPoint().x() - m_dragStart->x();
        if (std::abs(dx) > 3 || m_dragged) {
            m_dragged = true;
            const double span = m_style.zoom.visible().span();
            const double start = m_dragStartTime - dx * span / trackWidth();
            m_style.zoom.setVisible({ start, start + span });
            updateScrollBars();
            viewport()->update();
            Q_EMIT visibleRangeChanged(m_style.zoom.visible());
        }
        event->accept();
        return;
    }
    QAbstractScrollArea::mouseMoveEvent(event);
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_dragStart) {
        if (!m_dragged) {
            // A click: select the op's micro-batch, or clear on empty space / the same micro-batch.
            const auto hit = opAt(event->position().toPoint());
            const int microbatch = hit ? hit->op.microbatch : -1;
            setSelectedMicrobatch(microbatch == m_style.selectedMicrobatch ? -1 : microbatch);
        }
        m_dragStart.reset();
        event->accept();
        return;
    }
    QAbstractScrollArea::mouseReleaseEvent(event);
}

} // namespace stratex::ui
