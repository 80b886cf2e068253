// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/planner/mode_compare_chart.h"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QHBoxLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include "ui/common/chart_reset.h"
#include "ui/common/chart_style.h"

namespace stratex::ui {

namespace {

PaletteChartView* makeView(const QString& title, QWidget* parent)
{
    auto* view = new PaletteChartView(parent);
    view->chart()->setTitle(title);
    view->setAccessibleName(title);
    view->setMinimumHeight(220);
    return view;
}

// One mode's curve: a line through the points with markers on them.
void addSeries(QChart* chart, const QString& name, const QColor& colour, Qt::PenStyle style,
    const std::vector<std::pair<double, double>>& points, QAbstractAxis* x, QAbstractAxis* y)
{
    auto* line = new QLineSeries(chart);
    line->setName(name);
    // Fast is dashed: where both modes find the same plan, the normal line shows through.
    line->setPen(QPen(colour, 2, style));
    auto* markers = new QScatterSeries(chart);
    markers->setColor(colour);
    markers->setBorderColor(colour);
    markers->setMarkerSize(style == Qt::SolidLine ? 9 : 6);
    for (const auto& [batch, value] : points) {
        line->append(batch, value);
        markers->append(batch, value);
    }
    chart->addSeries(line);
    chart->addSeries(markers);
    for (QAbstractSeries* series : { static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(markers) }) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    chart->legend()->markers(markers).first()->setVisible(false);
}

// One mode's makespan range over the seeds of one batch: a vertical bar with end caps, drawn just
// beside the batch (normal left, fast right: the x axis is logarithmic, so the offset is a
// factor) so that the two modes' ranges do not hide each other.
void addWhisker(QChart* chart, const QColor& colour, double batch, double factor, const planner::MakespanSpread& spread,
    QAbstractAxis* x, QAbstractAxis* y)
{
    const double at = batch * factor;
    const double capHalfWidth = 1.025;
    auto* bar = new QLineSeries(chart);
    bar->setPen(QPen(colour, 2));
    bar->append(at / capHalfWidth, spread.min_ms);
    bar->append(at * capHalfWidth, spread.min_ms);
    bar->append(at, spread.min_ms);
    bar->append(at, spread.max_ms);
    bar->append(at / capHalfWidth, spread.max_ms);
    bar->append(at * capHalfWidth, spread.max_ms);
    chart->addSeries(bar);
    bar->attachAxis(x);
    bar->attachAxis(y);
    chart->legend()->markers(bar).first()->setVisible(false);
}

bool hasSpread(const planner::MakespanSpread& spread)
{
    return spread.seeds > 1 && spread.feasible > 0;
}

QLogValueAxis* batchAxis(const std::vector<planner::PlanCompareRow>& rows)
{
    auto* axis = new QLogValueAxis;
    axis->setBase(2);
    axis->setLabelFormat(QStringLiteral("%d"));
    axis->setTitleText(QObject::tr("global batch (samples)"));
    double low = rows.front().global_batch;
    double high = rows.front().global_batch;
    for (const planner::PlanCompareRow& row : rows) {
        low = std::min(low, double(row.global_batch));
        high = std::max(high, double(row.global_batch));
    }
    axis->setRange(low / 1.4, high * 1.4);
    return axis;
}

const QColor kNormal(0x4E, 0x79, 0xA7);
const QColor kFast(0xF2, 0x8E, 0x2B);

} // namespace

ModeCompareChart::ModeCompareChart(QWidget* parent)
    : QWidget(parent)
    , m_timeView(makeView(tr("Planning time"), this))
    , m_makespanView(makeView(tr("Makespan of the plan"), this))
{
    m_timeView->setObjectName(QStringLiteral("planningTimeChart"));
    m_makespanView->setObjectName(QStringLiteral("makespanChart"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_timeView);
    layout->addWidget(m_makespanView);
}

QChart* ModeCompareChart::timeChart() const
{
    return m_timeView->chart();
}

QChart* ModeCompareChart::makespanChart() const
{
    return m_makespanView->chart();
}

void ModeCompareChart::setRows(const std::vector<planner::PlanCompareRow>& rows)
{
    m_rows = rows;
    rebuild();
}

void ModeCompareChart::rebuild()
{
    const std::vector<planner::PlanCompareRow>& rows = m_rows;
    for (QChart* chart : { timeChart(), makespanChart() })
        resetChart(chart);
    if (rows.empty())
        return;

    std::vector<std::pair<double, double>> normalTime, fastTime, normalMakespan, fastMakespan;
    double timeLow = 1e300, timeHigh = 0, makespanHigh = 0;
    for (const planner::PlanCompareRow& row : rows) {
        normalTime.emplace_back(row.global_batch, std::max(0.01, row.normal_time_ms));
        fastTime.emplace_back(row.global_batch, std::max(0.01, row.fast_time_ms));
        timeLow = std::min({ timeLow, std::max(0.01, row.normal_time_ms), std::max(0.01, row.fast_time_ms) });
        timeHigh = std::max({ timeHigh, row.normal_time_ms, row.fast_time_ms });
        if (row.normal_feasible)
            normalMakespan.emplace_back(row.global_batch, row.normal_makespan_ms);
        if (row.fast_feasible)
            fastMakespan.emplace_back(row.global_batch, row.fast_makespan_ms);
        makespanHigh = std::max({ makespanHigh, row.normal_makespan_ms, row.fast_makespan_ms });
        for (const planner::MakespanSpread* spread : { &row.normal_spread, &row.fast_spread }) {
            if (hasSpread(*spread))
                makespanHigh = std::max(makespanHigh, spread->max_ms);
        }
    }

    QChart* time = timeChart();
    auto* timeX = batchAxis(rows);
    auto* timeY = new QLogValueAxis;
    timeY->setBase(10);
    timeY->setLabelFormat(QStringLiteral("%g"));
    timeY->setTitleText(tr("ms (log scale)"));
    timeY->setRange(
        std::pow(10.0, std::floor(std::log10(timeLow))), std::pow(10.0, std::ceil(std::log10(timeHigh * 1.01))));
    time->addAxis(timeX, Qt::AlignBottom);
    time->addAxis(timeY, Qt::AlignLeft);
    addSeries(time, tr("normal"), kNormal, Qt::SolidLine, normalTime, timeX, timeY);
    addSeries(time, tr("fast"), kFast, Qt::DashLine, fastTime, timeX, timeY);

    QChart* makespan = makespanChart();
    auto* makespanX = batchAxis(rows);
    auto* makespanY = new QValueAxis;
    makespanY->setTitleText(tr("ms per step"));
    setRealRange(makespanY, 0, makespanHigh * 1.1);
    makespan->addAxis(makespanX, Qt::AlignBottom);
    makespan->addAxis(makespanY, Qt::AlignLeft);
    addSeries(makespan, tr("normal"), kNormal, Qt::SolidLine, normalMakespan, makespanX, makespanY);
    addSeries(makespan, tr("fast"), kFast, Qt::DashLine, fastMakespan, makespanX, makespanY);
    // plan-compare --seeds: each mode's range over the seeds (the points are the first seed's).
    int seeds = 0;
    for (const planner::PlanCompareRow& row : rows) {
        if (hasSpread(row.normal_spread))
            addWhisker(makespan, kNormal, row.global_batch, 1 / 1.06, row.normal_spread, makespanX, makespanY);
        if (hasSpread(row.fast_spread))
            addWhisker(makespan, kFast, row.global_batch, 1.06, row.fast_spread, makespanX, makespanY);
        seeds = std::max({ seeds, row.normal_spread.seeds, row.fast_spread.seeds });
    }
    makespan->setTitle(
        seeds > 1 ? tr("Makespan of the plan (bars: min-max over %1 seeds)").arg(seeds) : tr("Makespan of the plan"));
    m_timeView->followPalette();
    m_makespanView->followPalette();
}

} // namespace stratex::ui
