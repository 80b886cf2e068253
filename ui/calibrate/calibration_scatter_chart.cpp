// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/calibrate/calibration_scatter_chart.h"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include "ui/common/chart_reset.h"

namespace stratex::ui {

namespace {

// As the Planner's mode chart: orange for what the model said, blue for what it says now.
const QColor kBefore(0xF2, 0x8E, 0x2B);
const QColor kAfter(0x4E, 0x79, 0xA7);

QScatterSeries* points(const QString& name, const QColor& colour, qreal size, QScatterSeries::MarkerShape shape,
    const std::vector<runs::RunError>& errors)
{
    auto* series = new QScatterSeries;
    series->setName(name);
    series->setColor(colour);
    series->setBorderColor(colour);
    series->setMarkerSize(size);
    series->setMarkerShape(shape);
    for (const runs::RunError& e : errors)
        series->append(e.measured_iteration_s, e.predicted_iteration_s);
    return series;
}

QAbstractAxis* axis(bool log, double low, double high, const QString& title)
{
    if (log) {
        auto* a = new QLogValueAxis;
        a->setBase(10);
        a->setLabelFormat(QStringLiteral("%g"));
        a->setRange(std::pow(10.0, std::floor(std::log10(low))), std::pow(10.0, std::ceil(std::log10(high))));
        a->setTitleText(title);
        return a;
    }
    auto* a = new QValueAxis;
    setRealRange(a, low, high);
    a->setTitleText(title);
    return a;
}

} // namespace

CalibrationScatterChart::CalibrationScatterChart(QWidget* parent)
    : PaletteChartView(parent)
{
    setObjectName(QStringLiteral("calibrationScatter"));
    setAccessibleName(tr("Predicted against measured iteration time"));
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(260);
    chart()->setTitle(tr("Predicted against measured iteration time"));
    chart()->legend()->setAlignment(Qt::AlignBottom);
}

void CalibrationScatterChart::setErrors(
    const std::vector<runs::RunError>& before, const std::vector<runs::RunError>& after)
{
    m_beforeErrors = before;
    m_afterErrors = after;
    rebuild();
}

void CalibrationScatterChart::rebuild()
{
    QChart* c = chart();
    resetChart(c);
    m_before = m_after = nullptr;
    if (m_beforeErrors.empty())
        return;
    double low = 1e300, high = 0;
    for (const auto* list : { &m_beforeErrors, &m_afterErrors }) {
        for (const runs::RunError& e : *list) {
            for (const double v : { e.measured_iteration_s, e.predicted_iteration_s }) {
                if (v > 0) {
                    low = std::min(low, v);
                    high = std::max(high, v);
                }
            }
        }
    }
    m_log = high / low > 10;
    if (!m_log) {
        // Some room around the points, from 0 when they are near it, so the diagonal shows its slope.
        const double pad = 0.1 * (high - low) + 0.05 * high;
        low = low - pad < 0.25 * high ? 0 : low - pad;
        high += pad;
    }
    QAbstractAxis* x = axis(m_log, low, high, tr("measured iteration time (s)"));
    QAbstractAxis* y = axis(m_log, low, high, tr("predicted iteration time (s)"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);

    auto* diagonal = new QLineSeries;
    diagonal->setName(tr("predicted = measured"));
    QPen pen(palette().color(QPalette::Text), 1.2, Qt::DashLine);
    pen.setColor(QColor::fromRgbF(pen.color().redF(), pen.color().greenF(), pen.color().blueF(), 0.6f));
    diagonal->setPen(pen);
    // Corner to corner of the axes' range (both axes have the same).
    double from = low, to = high;
    if (const auto* log = qobject_cast<QLogValueAxis*>(x)) {
        from = log->min();
        to = log->max();
    } else if (const auto* linear = qobject_cast<QValueAxis*>(x)) {
        from = linear->min();
        to = linear->max();
    }
    diagonal->append(from, from);
    diagonal->append(to, to);
    m_before = points(tr("before the fit"), kBefore, 11, QScatterSeries::MarkerShapeCircle, m_beforeErrors);
    m_after = points(tr("after the fit"), kAfter, 9, QScatterSeries::MarkerShapeRectangle, m_afterErrors);
    for (QAbstractSeries* series : std::initializer_list<QAbstractSeries*> { diagonal, m_before, m_after }) {
        c->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    connect(m_before, &QScatterSeries::hovered, this,
        [this](const QPointF& point, bool state) { showPointToolTip(point, state, false); });
    connect(m_after, &QScatterSeries::hovered, this,
        [this](const QPointF& point, bool state) { showPointToolTip(point, state, true); });
    followPalette();
}

void CalibrationScatterChart::showPointToolTip(const QPointF& point, bool state, bool after)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    const std::vector<runs::RunError>& errors = after ? m_afterErrors : m_beforeErrors;
    const auto near = std::ranges::min_element(errors, {}, [&](const runs::RunError& e) {
        return std::hypot(e.measured_iteration_s - point.x(), e.predicted_iteration_s - point.y());
    });
    if (near == errors.end())
        return;
    const QLocale c = QLocale::c();
    QToolTip::showText(QCursor::pos(),
        tr("%1 (%2)\nmeasured %3 s, predicted %4 s, throughput error %5 %")
            .arg(QString::fromStdString(near->id), after ? tr("after the fit") : tr("before the fit"),
                c.toString(near->measured_iteration_s, 'f', 3), c.toString(near->predicted_iteration_s, 'f', 3),
                c.toString(near->throughput_error * 100, 'f', 1)),
        this);
}

} // namespace stratex::ui
