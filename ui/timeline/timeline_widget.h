// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>

#include <QAbstractScrollArea>

#include "ui/timeline/timeline_geometry.h"
#include "ui/timeline/timeline_painter.h"

#include "controllers/timeline_document.h"

namespace stratex::ui {

// The pipeline Gantt: one band per device with compute, send and receive lanes and the memory
// curve, for one or more plans on a shared time axis. Perfetto's keys: W/S zoom, A/D pan,
// Ctrl+wheel zooms around the cursor, drag pans, 0/Home fits; a click on an op highlights its
// micro-batch on every device, Esc clears; hovering shows the op.
class TimelineWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    struct OpHit {
        int plan = -1;
        int device = -1;
        TimelineLane lane = TimelineLane::Compute;
        sim::TimelineOp op;
    };

    explicit TimelineWidget(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const controllers::TimelineDocument> document);
    const controllers::TimelineDocument* document() const { return m_document.get(); }

    const TimelineZoom& zoom() const { return m_style.zoom; }
    void zoomAround(double anchor_us, double factor);
    void fit();

    int selectedMicrobatch() const { return m_style.selectedMicrobatch; }
    void setSelectedMicrobatch(int microbatch);

    std::optional<OpHit> opAt(QPoint viewportPoint) const;
    QString toolTipFor(const OpHit& hit) const;
    // Viewport x of a time, and the viewport point in the middle of an op (tests, scripting).
    double xOfTime(double time_us) const;
    QPoint viewportPointOf(int plan, int device, TimelineLane lane, double time_us) const;

    // The current view (all rows, no vertical scroll) at the widget's width, for PNG/SVG export.
    QSize renderSize() const;
    void render(QPainter& painter) const;

Q_SIGNALS:
    void visibleRangeChanged(TimeRange range);
    void microbatchSelected(int microbatch);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    // The keys work under the pointer without a click (a click also selects a micro-batch).
    void enterEvent(QEnterEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    int trackWidth() const;
    double timeAtX(double viewportX) const;
    void updateScrollBars();
    void zoomStep(double factor, std::optional<double> anchorX = std::nullopt);

    std::shared_ptr<const controllers::TimelineDocument> m_document;
    TimelineStyle m_style;
    std::optional<QPoint> m_dragStart;
    double m_dragStartTime = 0;
    bool m_dragged = false;
    bool m_updatingScrollBars = false;
};

} // namespace stratex::ui
