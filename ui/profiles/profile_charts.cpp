// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/profiles/profile_charts.h"

#include <algorithm>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLineSeries>
#include <QLocale>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include "ui/common/categorical_palette.h"
#include "ui/common/chart_reset.h"
#include "ui/common/chart_style.h"

namespace stratex::ui {

namespace {

enum class Values { Real, Whole };

QValueAxis* valueAxis(
    QChart* chart, const QString& title, Qt::Alignment alignment, double low, double high, Values values = Values::Real)
{
    auto* axis = new QValueAxis(chart);
    axis->setTitleText(title);
    if (values == Values::Whole)
        setIntegerRange(axis, low, high);
    else
        setRealRange(axis, low, high);
    chart->addAxis(axis, alignment);
    return axis;
}

void attach(QChart* chart, QAbstractSeries* series, QAbstractAxis* x, QAbstractAxis* y)
{
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
}

QScatterSeries* points(const QString& name, const std::vector<std::pair<int, double>>& values, int colour)
{
    auto* series = new QScatterSeries;
    series->setName(name);
    series->setMarkerSize(8);
    series->setColor(categoricalColor(colour));
    series->setBorderColor(categoricalColor(colour).darker(130));
    for (const auto& [x, y] : values)
        series->append(x, y);
    return series;
}

// A fit the search uses, drawn as a line over the points it was fitted to: the legend shows it
// as a line segment, the points as dots (PaletteChartView's legend), in the points' colour.
QLineSeries* fitLine(const QString& name, int colour)
{
    auto* series = new QLineSeries;
    series->setName(name);
    series->setPen(QPen(categoricalColor(colour), 2));
    return series;
}

double highest(const std::vector<std::pair<int, double>>& values)
{
    double top = 0;
    for (const auto& [x, y] : values)
        top = std::max(top, y);
    return top;
}

QString number(double value, int decimals)
{
    return QLocale::c().toString(value, 'f', decimals);
}

} // namespace

void fillBatchTimeChart(QChart* chart, const profile::ProfileOverview* overview)
{
    resetChart(chart);
    chart->setTitle(QObject::tr("Forward time by batch size"));
    if (!overview || overview->layer_ms_per_sample_by_bsz.empty())
        return;
    const auto& layer = overview->layer_ms_per_sample_by_bsz;
    const auto& other = overview->other_ms_per_sample_by_bsz;
    const int maxBsz = std::max(layer.back().first, other.empty() ? 1 : other.back().first);
    auto* x = valueAxis(chart, QObject::tr("batch size (samples) at sequence %1").arg(overview->seq_length),
        Qt::AlignBottom, 0, maxBsz + 1, Values::Whole);
    auto* y = valueAxis(
        chart, QObject::tr("ms per sample"), Qt::AlignLeft, 0, std::max(highest(layer), highest(other)) * 1.15);
    attach(chart, points(QObject::tr("one layer, profiled"), layer, 0), x, y);
    if (!other.empty())
        attach(chart, points(QObject::tr("embedding, head, loss"), other, 1), x, y);
    if (overview->layer_batch_fit) {
        // Galvatron's batch mode: a micro-batch of b samples takes slope·b + intercept ms.
        auto* fit = fitLine(QObject::tr("one layer, batch fit"), 0);
        for (double b = 1; b <= maxBsz; b += 0.25)
            fit->append(b, overview->layer_batch_fit->at(b) / b);
        attach(chart, fit, x, y);
    }
}

void fillSequenceTimeChart(QChart* chart, const profile::ProfileOverview* overview)
{
    resetChart(chart);
    chart->setTitle(QObject::tr("Forward time by sequence length (batch size 1)"));
    if (!overview || overview->layer_ms_per_sample_by_seq.empty())
        return;
    const auto& layer = overview->layer_ms_per_sample_by_seq;
    // Sequence mode extrapolates: show the fit a quarter beyond the longest profiled length.
    const double longest = std::max(layer.back().first, overview->seq_length) * 1.25;
    double top = highest(layer);
    if (overview->layer_seq_fit)
        top = std::max(top, overview->layer_seq_fit->at(longest));
    auto* x = valueAxis(chart, QObject::tr("sequence length (tokens)"), Qt::AlignBottom, 0, longest, Values::Whole);
    auto* y = valueAxis(chart, QObject::tr("ms per sample"), Qt::AlignLeft, 0, top * 1.1);
    attach(chart, points(QObject::tr("one layer, profiled"), layer, 0), x, y);
    if (overview->layer_seq_fit) {
        auto* fit = fitLine(QObject::tr("one layer, quadratic fit"), 0);
        for (int i = 0; i <= 60; ++i) {
            const double s = longest * i / 60.0;
            fit->append(s, overview->layer_seq_fit->at(s));
        }
        attach(chart, fit, x, y);
    }
}

void fillActivationChart(QChart* chart, const profile::ProfileOverview* overview)
{
    resetChart(chart);
    if (!overview || overview->activation_mb_per_sample_by_tp.empty()) {
        chart->setTitle(QObject::tr("Memory per layer"));
        return;
    }
    // Short enough for the smallest chart (issue 24, finding 11: the recompute figure was cut off);
    // what recomputation keeps goes with the bars, in the legend.
    chart->setTitle(QObject::tr("Memory per layer: parameters %1 MB (fp32)").arg(number(overview->parameter_mb, 1)));
    auto* set
        = new QBarSet(overview->checkpoint_mb_per_sample ? QObject::tr("activation per sample (%1 MB recomputed)")
                                                               .arg(number(*overview->checkpoint_mb_per_sample, 1))
                                                         : QObject::tr("activation per sample"));
    set->setColor(categoricalColor(2));
    QStringList categories;
    double top = 0;
    for (const auto& [tp, mb] : overview->activation_mb_per_sample_by_tp) {
        *set << mb;
        categories << QObject::tr("TP %1").arg(tp);
        top = std::max(top, mb);
    }
    auto* series = new QBarSeries;
    series->append(set);
    auto* x = new QBarCategoryAxis(chart);
    x->append(categories);
    chart->addAxis(x, Qt::AlignBottom);
    auto* y = valueAxis(chart, QObject::tr("MB per sample"), Qt::AlignLeft, 0, top * 1.1);
    attach(chart, series, x, y);
}

void fillBandwidthChart(QChart* chart, const profile::ProfileOverview* overview)
{
    resetChart(chart);
    chart->setTitle(overview
            ? QObject::tr("Bus bandwidth (overlap slowdown %1)").arg(number(overview->overlap_slowdown, 3))
            : QObject::tr("Collectives"));
    if (!overview || overview->allreduce.empty())
        return;
    std::vector<int> sizes;
    for (const auto& group : overview->allreduce)
        sizes.push_back(group.size);
    for (const auto& [stages, bandwidth] : overview->p2p_gb_per_s_by_stages) {
        if (std::ranges::find(sizes, stages) == sizes.end())
            sizes.push_back(stages);
    }
    std::ranges::sort(sizes);
    auto* consecutive = new QBarSet(QObject::tr("all-reduce, consecutive"));
    auto* strided = new QBarSet(QObject::tr("all-reduce, strided"));
    auto* p2p = new QBarSet(QObject::tr("p2p between stages"));
    consecutive->setColor(categoricalColor(0));
    strided->setColor(categoricalColor(1));
    p2p->setColor(categoricalColor(3));
    QStringList categories;
    double top = 0;
    for (int size : sizes) {
        double c = 0;
        double s = 0;
        double p = 0;
        for (const auto& group : overview->allreduce) {
            if (group.size == size) {
                c = group.consecutive_gb_per_s.value_or(0);
                s = group.strided_gb_per_s.value_or(0);
            }
        }
        for (const auto& [stages, bandwidth] : overview->p2p_gb_per_s_by_stages) {
            if (stages == size)
                p = bandwidth;
        }
        *consecutive << c;
        *strided << s;
        *p2p << p;
        top = std::max({ top, c, s, p });
        categories << QString::number(size);
    }
    auto* series = new QBarSeries;
    series->append({ consecutive, strided, p2p });
    auto* x = new QBarCategoryAxis(chart);
    x->append(categories);
    x->setTitleText(QObject::tr("group size (GPUs) / pipeline stages"));
    chart->addAxis(x, Qt::AlignBottom);
    auto* y = valueAxis(chart, QObject::tr("GB/s"), Qt::AlignLeft, 0, top * 1.1);
    attach(chart, series, x, y);
}

} // namespace stratex::ui
