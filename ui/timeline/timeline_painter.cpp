// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_painter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <QFontMetrics>
#include <QLocale>
#include <QPainter>
#include <QPolygonF>

#include "ui/timeline/timeline_geometry.h"

#include "controllers/timeline_document.h"

namespace stratex::ui {

using sim::OpKind;
using sim::TimelineOp;

QColor timelineOpColor(const TimelineOp& op)
{
    return timelineOpColor(op.kind, op.microbatch);
}

QColor timelineOpColor(OpKind kind, int microbatch)
{
    constexpr int kShades = kTimelineShades;
    static const auto table = [] {
        const QRgb bases[] = { 0x4E79A7, 0xF28E2B, 0x59A14F, 0xB07AA1, 0x76B7B2 }; // F, B, W, send, recv
        std::array<std::array<QColor, kShades>, 5> colours;
        for (std::size_t k = 0; k < 5; ++k) {
            for (int shade = 0; shade < kShades; ++shade)
                colours[k][std::size_t(shade)] = QColor::fromRgb(QColor(bases[k]).lighter(100 + shade * 14).rgb());
        }
        return colours;
    }();
    return table[std::size_t(kind)][std::size_t(((microbatch % kShades) + kShades) % kShades)];
}

QColor timelineMemoryColor()
{
    return QColor(0xE1, 0x57, 0x59);
}

std::pair<std::size_t, std::size_t> visibleOps(const std::vector<TimelineOp>& ops, double t0_us, double t1_us)
{
    const auto first
        = std::partition_point(ops.begin(), ops.end(), [t0_us](const TimelineOp& op) { return op.endUs() < t0_us; });
    const auto last
        = std::partition_point(first, ops.end(), [t1_us](const TimelineOp& op) { return op.start_us <= t1_us; });
    return { std::size_t(first - ops.begin()), std::size_t(last - ops.begin()) };
}

const TimelineOp* opAtTime(const std::vector<TimelineOp>& ops, double time_us, double tolerance_us)
{
    const auto [first, last] = visibleOps(ops, time_us - tolerance_us, time_us + tolerance_us);
    const TimelineOp* best = nullptr;
    double bestDistance = 0;
    for (std::size_t i = first; i < last; ++i) {
        const TimelineOp& op = ops[i];
        const double distance = time_us < op.start_us ? op.start_us - time_us
            : time_us > op.endUs()                    ? time_us - op.endUs()
                                                      : 0;
        if (!best || distance < bestDistance) {
            best = &op;
            bestDistance = distance;
        }
    }
    return best;
}

namespace {

QString opLabel(const TimelineOp& op)
{
    // Interleaved pipelines run a micro-batch once per model chunk on each device: "F3.1" is
    // micro-batch 3 on the device's second chunk (Megatron's virtual stage 1).
    const QString chunk = op.chunk > 0 ? QStringLiteral(".%1").arg(op.chunk) : QString();
    switch (op.kind) {
    case OpKind::Forward:
        return QStringLiteral("F%1").arg(op.microbatch) + chunk;
    case OpKind::Backward:
        return QStringLiteral("B%1").arg(op.microbatch) + chunk;
    case OpKind::Weight:
        return QStringLiteral("W%1").arg(op.microbatch) + chunk;
    default:
        return QString::number(op.microbatch);
    }
}

QColor dimmedColor(const QColor& colour, const QColor& background)
{
    return QColor::fromRgbF(colour.redF() * 0.3 + background.redF() * 0.7,
        colour.greenF() * 0.3 + background.greenF() * 0.7, colour.blueF() * 0.3 + background.blueF() * 0.7);
}

// Ticks at 1, 2 or 5 times a power of ten, at least `minPixels` apart.
double tickStepUs(double spanUs, double width, double minPixels)
{
    const double raw = spanUs / std::max(1.0, width / minPixels);
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    for (double factor : { 1.0, 2.0, 5.0, 10.0 }) {
        if (factor * magnitude >= raw)
            return factor * magnitude;
    }
    return 10 * magnitude;
}

QString timeLabel(double us, double step)
{
    if (step >= 100000)
        return QStringLiteral("%1 s").arg(QLocale::c().toString(us / 1e6, 'f', step >= 1e6 ? 0 : 1));
    if (step >= 1000)
        return QStringLiteral("%1 ms").arg(
            QLocale::c().toString(us / 1000.0, 'f', step >= 10000 ? 0 : (step >= 1000 ? 1 : 2)));
    return QStringLiteral("%1 µs").arg(QLocale::c().toString(us, 'f', step >= 1 ? 0 : 2));
}

struct Frame {
    QPainter& painter;
    const TimelineStyle& style;
    int trackLeft; // x of time 0 of the tracks in the view
    int trackWidth;
    int rowsTop; // y of content y = 0 in the view
    QColor background;
    QColor text;

    double x(double time_us) const { return trackLeft + style.zoom.mapTimeToX(time_us, trackWidth); }
};

void paintRuler(const Frame& f, int height)
{
    QPainter& p = f.painter;
    const QRect ruler(0, 0, f.trackLeft + f.trackWidth, height);
    p.fillRect(ruler, f.style.palette.color(QPalette::Window));
    const TimeRange visible = f.style.zoom.visible();
    const double step = tickStepUs(visible.span(), f.trackWidth, 90);
    p.setPen(f.text);
    for (double t = std::ceil(visible.start_us / step) * step; t <= visible.end_us; t += step) {
        const int x = int(std::lround(f.x(t)));
        p.drawLine(x, height - 6, x, height - 1);
        p.drawText(QRect(x + 3, 2, 120, height - 6), Qt::AlignLeft | Qt::AlignVCenter, timeLabel(t, step));
    }
    p.drawLine(0, height - 1, ruler.right(), height - 1);
}

// Ops of one lane. Ops narrower than a pixel are merged into runs, one rectangle per stretch of
// busy pixels (as Perfetto draws dense tracks), and whatever ends inside pixels already painted
// is skipped with a binary search: the cost per lane is bounded by its width, not its op count.
void paintLane(const Frame& f, const std::vector<TimelineOp>& ops, QRect lane, bool labels)
{
    QPainter& p = f.painter;
    const TimeRange visible = f.style.zoom.visible();
    const auto [first, last] = visibleOps(ops, visible.start_us, visible.end_us);
    const QFontMetrics metrics = p.fontMetrics();
    const bool selecting = f.style.selectedMicrobatch >= 0;
    const auto colourOf = [&](const TimelineOp& op) {
        const QColor colour = timelineOpColor(op);
        return selecting && op.microbatch != f.style.selectedMicrobatch ? dimmedColor(colour, f.background) : colour;
    };

    QRect run; // pending run of sub-pixel ops
    QColor runColour;
    const auto flushRun = [&] {
        if (!run.isNull())
            p.fillRect(run, runColour);
        run = QRect();
    };
    for (std::size_t i = first; i < last; ++i) {
        const TimelineOp& op = ops[i];
        const double x0 = std::max(double(f.trackLeft), f.x(op.start_us));
        const double x1 = std::min(double(f.trackLeft + f.trackWidth), f.x(op.endUs()));
        const int left = int(std::floor(x0));
        const int right = std::max(left + 1, int(std::ceil(x1)));
        const bool selected = selecting && op.microbatch == f.style.selectedMicrobatch;
        if (x1 - x0 < 1.0) {
            if (!run.isNull() && left <= run.right() + 1) {
                run.setRight(std::max(run.right(), right - 1));
                if (selected)
                    runColour = colourOf(op); // a selected op shows through its run
            } else {
                flushRun();
                run = QRect(left, lane.top(), right - left, lane.height());
                runColour = colourOf(op);
            }
            if (!selecting) {
                const double covered = f.style.zoom.mapXToTime(run.right() + 1 - f.trackLeft, f.trackWidth);
                const auto next
                    = std::partition_point(ops.begin() + std::ptrdiff_t(i) + 1, ops.begin() + std::ptrdiff_t(last),
                        [covered](const TimelineOp& later) { return later.endUs() < covered; });
                i = std::size_t(next - ops.begin()) - 1;
            }
            continue;
        }
        flushRun();
        const QColor colour = colourOf(op);
        // A one-pixel gap between ops wide enough to show where one ends and the next begins.
        const int gap = right - left >= 4 ? 1 : 0;
        const QRect r(left, lane.top(), right - left - gap, lane.height());
        p.fillRect(r, colour);
        if (selected) {
            p.setPen(f.text);
            p.drawRect(r.adjusted(0, 0, -1, -1));
        }
        if (labels && r.width() > 18) {
            const QString label = opLabel(op);
            if (metrics.horizontalAdvance(label) + 4 <= r.width()) {
                p.setPen(colour.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white));
                p.drawText(r, Qt::AlignCenter, label);
            }
        }
    }
    flushRun();
}

// Collects the points of a polyline, keeping at most four per pixel column (entry, lowest,
// highest, exit): the drawn curve is the same, its cost bounded by the lane's width.
class PixelPolyline {
public:
    void add(double x, double y)
    {
        const int pixel = int(std::floor(x));
        if (pixel != m_pixel)
            flush();
        if (m_count == 0) {
            m_pixel = pixel;
            m_first = m_last = m_low = m_high = QPointF(x, y);
        } else {
            m_last = QPointF(x, y);
            if (y < m_low.y())
                m_low = m_last;
            if (y > m_high.y())
                m_high = m_last;
        }
        ++m_count;
    }
    const QPolygonF& finish()
    {
        flush();
        return m_points;
    }

private:
    void flush()
    {
        if (m_count == 0)
            return;
        m_points << m_first;
        if (m_count > 1) {
            m_points << m_low << m_high << m_last;
        }
        m_count = 0;
    }
    QPolygonF m_points;
    int m_pixel = std::numeric_limits<int>::min();
    int m_count = 0;
    QPointF m_first, m_last, m_low, m_high;
};

// The device's memory as a step curve.
void paintMemory(const Frame& f, const std::vector<sim::MemorySample>& samples, QRect lane, double floorMb,
    double scaleMb, double limitMb)
{
    QPainter& p = f.painter;
    p.fillRect(lane, f.style.palette.color(QPalette::AlternateBase));
    if (samples.empty() || scaleMb <= floorMb)
        return;
    const auto y = [&](double mb) {
        return lane.bottom() - (lane.height() - 2) * std::clamp((mb - floorMb) / (scaleMb - floorMb), 0.0, 1.0);
    };
    const TimeRange visible = f.style.zoom.visible();
    auto it = std::partition_point(
        samples.begin(), samples.end(), [&](const sim::MemorySample& s) { return s.time_us <= visible.start_us; });
    if (it != samples.begin())
        --it;
    PixelPolyline curve;
    double current = it->mem_mb;
    curve.add(f.x(std::max(it->time_us, visible.start_us)), y(current));
    for (++it; it != samples.end() && it->time_us <= visible.end_us; ++it) {
        const double x = f.x(it->time_us);
        curve.add(x, y(current)); // the step: hold, then jump
        curve.add(x, y(it->mem_mb));
        current = it->mem_mb;
    }
    curve.add(f.x(std::min(visible.end_us, f.style.zoom.trace().end_us)), y(current));
    QPen pen(timelineMemoryColor());
    pen.setCosmetic(true); // one device pixel wide: the raster engine's fast line path
    p.setPen(pen);
    p.drawPolyline(curve.finish());
    if (limitMb > 0) {
        QPen limitPen(f.text);
        limitPen.setStyle(Qt::DashLine);
        p.setPen(limitPen);
        const int ly = int(y(limitMb));
        p.drawLine(lane.left(), ly, lane.right(), ly);
    }
}

void paintDeviceLabel(const Frame& f, const controllers::TimelinePlanView& plan, int device, QRect band)
{
    QPainter& p = f.painter;
    const sim::DeviceTimeline& timeline = plan.timeline.devices[std::size_t(device)];
    const sim::DeviceUtilization& use = plan.utilization[std::size_t(device)];
    p.setPen(f.text);
    const QRect first(band.left() + 6, band.top(), band.width() - 10, TimelineGeometry::kComputeHeight);
    // A measured run against its prediction names its rows (stage, measured or predicted, the difference).
    const QString name = device < plan.deviceLabels.size() ? plan.deviceLabels[device] : QString();
    p.drawText(first, Qt::AlignLeft | Qt::AlignVCenter,
        name.isEmpty()
            ? QObject::tr("device %1 · idle %2 %").arg(device).arg(QLocale::c().toString(use.bubble_percent, 'f', 1))
            : name);
    QColor secondary = f.text;
    secondary.setAlphaF(0.7);
    p.setPen(secondary);
    const QRect second(band.left() + 6, band.top() + TimelineGeometry::kComputeHeight, band.width() - 10,
        2 * TimelineGeometry::kCommHeight + TimelineGeometry::kMemoryHeight);
    p.drawText(second, Qt::AlignLeft | Qt::AlignVCenter,
        QObject::tr("busy %1 % · peak %2 GB")
            .arg(QLocale::c().toString(use.busy_percent, 'f', 1),
                QLocale::c().toString(timeline.peak_memory_mb / 1000.0, 'f', 2)));
}

} // namespace

QString formatDuration(double us)
{
    if (us >= 1e6)
        return QStringLiteral("%1 s").arg(QLocale::c().toString(us / 1e6, 'f', 3));
    if (us >= 1000)
        return QStringLiteral("%1 ms").arg(QLocale::c().toString(us / 1000.0, 'f', 2));
    return QStringLiteral("%1 µs").arg(QLocale::c().toString(us, 'f', 0));
}

void paintTimeline(
    QPainter& painter, const controllers::TimelineDocument& document, const TimelineStyle& style, QSize size)
{
    const TimelineGeometry geometry(document);
    const Frame f { painter, style, TimelineGeometry::kLabelWidth,
        std::max(1, size.width() - TimelineGeometry::kLabelWidth), TimelineGeometry::kRulerHeight - style.scrollY,
        style.palette.color(QPalette::Base), style.palette.color(QPalette::Text) };
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.fillRect(QRect(QPoint(0, 0), size), f.background);

    const double memoryFloor = document.memoryFloorMb();
    const double memoryScale = document.memoryScaleMb();
    painter.setClipRect(QRect(0, TimelineGeometry::kRulerHeight, size.width(), size.height()));
    for (int p = 0; p < int(document.plans.size()); ++p) {
        const controllers::TimelinePlanView& plan = document.plans[std::size_t(p)];
        const QRect header = geometry.planHeader(p, f.trackWidth).translated(f.trackLeft, f.rowsTop);
        if (header.bottom() >= TimelineGeometry::kRulerHeight && header.top() < size.height()) {
            painter.fillRect(header, style.palette.color(QPalette::Window));
            painter.setPen(f.text);
            QFont bold = painter.font();
            bold.setBold(true);
            painter.save();
            painter.setFont(bold);
            // Elided in the middle where the view is narrower than the line (a long plan name): the
            // figures at its end stay, and the summary under the view has the whole line.
            const QRect line = header.adjusted(6, 0, -6, 0);
            painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(bold).elidedText(
                    QObject::tr("%1 — pipeline makespan %2 · bubble %3 % (busiest device idle)")
                        .arg(plan.name, formatDuration(plan.timeline.makespan_us),
                            QLocale::c().toString(plan.pipelineBubblePercent(), 'f', 1)),
                    Qt::ElideMiddle, line.width()));
            painter.restore();
        }
        for (int d = 0; d < plan.deviceCount(); ++d) {
            const int top = geometry.deviceTop(p, d) + f.rowsTop;
            if (top > size.height() || top + TimelineGeometry::kDeviceHeight < TimelineGeometry::kRulerHeight)
                continue; // culled: not in the vertical view
            const auto lane = [&](TimelineLane kind) {
                return geometry.lane(p, d, kind, f.trackWidth).translated(f.trackLeft, f.rowsTop);
            };
            const QRect compute = lane(TimelineLane::Compute);
            painter.fillRect(compute, style.palette.color(QPalette::AlternateBase));
            paintLane(f, plan.timeline.devices[std::size_t(d)].compute, compute, true);
            paintLane(f, plan.sends[std::size_t(d)], lane(TimelineLane::Send), false);
            paintLane(f, plan.recvs[std::size_t(d)], lane(TimelineLane::Recv), false);
            paintMemory(f, plan.timeline.devices[std::size_t(d)].memory, lane(TimelineLane::Memory), memoryFloor,
                memoryScale, plan.memoryLimitMb);
            paintDeviceLabel(f, plan, d,
                QRect(0, top, TimelineGeometry::kLabelWidth,
                    TimelineGeometry::kDeviceHeight - TimelineGeometry::kDeviceGap));
        }
        // End of this plan's step, when plans of different length share the axis.
        const int end = int(std::lround(f.x(plan.timeline.makespan_us)));
        if (end >= f.trackLeft && end <= f.trackLeft + f.trackWidth) {
            QPen pen(f.text);
            pen.setStyle(Qt::DotLine);
            painter.setPen(pen);
            const int top = geometry.deviceTop(p, 0) + f.rowsTop;
            painter.drawLine(end, top, end, top + plan.deviceCount() * TimelineGeometry::kDeviceHeight);
        }
    }
    painter.setClipping(false);
    paintRuler(f, TimelineGeometry::kRulerHeight);
    painter.restore();
}

} // namespace stratex::ui
