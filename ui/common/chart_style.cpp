// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/chart_style.h"

#include <algorithm>
#include <cmath>

#include <QAbstractAxis>
#include <QChart>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QPalette>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QXYSeries>

#include "ui/common/chart_legend.h"

namespace stratex::ui {

namespace {

QColor mix(const QColor& from, const QColor& to, double amount)
{
    return QColor::fromRgbF(float(from.redF() + (to.redF() - from.redF()) * amount),
        float(from.greenF() + (to.greenF() - from.greenF()) * amount),
        float(from.blueF() + (to.blueF() - from.blueF()) * amount));
}

} // namespace

void applyPaletteToChart(QChart* chart, const QPalette& palette)
{
    const QColor background = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    chart->setBackgroundBrush(background);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    chart->legend()->setBrush(Qt::NoBrush);
    chart->legend()->setPen(Qt::NoPen);
    for (QLegendMarker* marker : chart->legend()->markers()) {
        const bool xy = qobject_cast<QXYSeries*>(marker->series()) != nullptr;
        marker->setShape(xy ? QLegend::MarkerShapeFromSeries : QLegend::MarkerShapeRectangle);
    }
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(mix(background, text, 0.45));
        axis->setGridLineColor(mix(background, text, 0.18));
        axis->setMinorGridLineColor(mix(background, text, 0.09));
        axis->setShadesVisible(false);
    }
}

void setIntegerRange(QValueAxis* axis, double low, double high, int targetTicks)
{
    const double span = std::max(1.0, high - low);
    const double raw = span / std::max(1, targetTicks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / magnitude;
    double step = magnitude * (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10);
    step = std::max(1.0, std::round(step));
    // Whole multiples of a whole step: every tick value is exact, so the label is too.
    const double first = std::floor(low / step) * step;
    double last = std::ceil(high / step) * step;
    if (last <= first)
        last = first + step;
    axis->setRange(first, last);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(int(std::lround((last - first) / step)) + 1);
    axis->setLabelFormat(QString::fromLatin1(kIntegerLabelFormat));
}

void setRealRange(QValueAxis* axis, double low, double high)
{
    axis->setRange(low, high > low ? high : low + 1);
    axis->applyNiceNumbers();
    const double step = (axis->max() - axis->min()) / std::max(1, axis->tickCount() - 1);
    int decimals = 0;
    for (double scaled = step; decimals < 6 && std::abs(scaled - std::round(scaled)) > 1e-6 * std::max(1.0, scaled);
         scaled *= 10)
        ++decimals;
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

PaletteChartView::PaletteChartView(QWidget* parent)
    : QChartView(new QChart, parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    followPalette();
}

void PaletteChartView::followPalette()
{
    applyPaletteToChart(chart(), palette());
    setBackgroundBrush(palette().color(QPalette::Base));
    if (m_legend)
        m_legend->refresh();
}

QWidget* PaletteChartView::withWrappingLegend()
{
    auto* box = new QWidget(parentWidget());
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_legend = new ChartLegend(chart(), box);
    m_legend->setObjectName(objectName().isEmpty() ? QString() : objectName() + QStringLiteral("Legend"));
    layout->addWidget(this, 1);
    layout->addWidget(m_legend);
    followPalette();
    return box;
}

void PaletteChartView::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        followPalette();
}

} // namespace stratex::ui
