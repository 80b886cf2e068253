// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/stratex_memory_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QHorizontalStackedBarSeries>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include "core/common/plan_figures.h"
#include "core/hardware/cluster_description.h"
#include "core/megatron/memory_ledger_explain.h"
#include "ui/common/categorical_palette.h"
#include "ui/common/chart_reset.h"

namespace stratex::ui {

namespace {

QString figureLabel(figures::Figure figure)
{
    return QString::fromUtf8(figures::label(figure).data()).toLower();
}
// GB as the memory field takes them: binary (an "80 GB" GPU has 80 GiB).
constexpr double kMbPerGb = hardware::kMbPerGib;
} // namespace

StratexMemoryChart::StratexMemoryChart(QWidget* parent)
    : PaletteChartView(parent)
{
    setAccessibleName(tr("Memory per pipeline stage of the selected stratex plan"));
    chart()->setTitle(tr("Memory per stage"));
    setMinimumHeight(200);
}

QList<QBarSet*> StratexMemoryChart::barSets() const
{
    for (QAbstractSeries* series : chart()->series()) {
        if (auto* bars = qobject_cast<QStackedBarSeries*>(series))
            return bars->barSets();
    }
    return {};
}

void StratexMemoryChart::setPlan(const megatron::Estimate* plan)
{
    QChart* c = chart();
    resetChart(c);
    m_limit = nullptr;
    if (!plan || plan->stages.empty()) {
        c->setTitle(tr("Memory per stage"));
        return;
    }
    // One colour per part, the same in every plan; the palette's first colours for the parts that
    // grow with the strategy's choices (sharding, recompute).
    struct Part {
        QString name;
        double megatron::StageMemory::*mb;
        int colour;
    };
    const Part parts[] = {
        { tr("weights"), &megatron::StageMemory::weights_mb, 0 },
        { tr("gradients"), &megatron::StageMemory::gradients_mb, 1 },
        { tr("optimizer"), &megatron::StageMemory::optimizer_mb, 3 },
        { tr("activations"), &megatron::StageMemory::activations_mb, 4 },
        { tr("logits"), &megatron::StageMemory::logits_mb, 6 },
        { tr("workspace"), &megatron::StageMemory::workspace_mb, 5 },
        // Beyond the allocated tensors: what the device shows on top (docs/memory-model.md).
        { tr("allocator cache"), &megatron::StageMemory::allocator_cache_mb, 7 },
        { tr("CUDA context"), &megatron::StageMemory::cuda_context_mb, 8 },
        { tr("NCCL"), &megatron::StageMemory::nccl_mb, 9 },
    };
    auto* series = new QStackedBarSeries(c);
    QStringList categories;
    double highest = plan->memory_limit_mb;
    for (const Part& part : parts) {
        auto* set = new QBarSet(part.name);
        set->setColor(categoricalColor(part.colour));
        set->setBorderColor(categoricalColor(part.colour));
        for (const megatron::StageEstimate& stage : plan->stages)
            *set << stage.memory.*part.mb / kMbPerGb;
        series->append(set);
    }
    for (const megatron::StageEstimate& stage : plan->stages) {
        categories << tr("stage %1").arg(stage.stage);
        highest = std::max(highest, stage.memory.totalMb());
    }
    c->addSeries(series);
    // Hover values: the part, and the stage's allocated and device peaks against the limit (copies:
    // the plan may go before the chart is reset).
    QList<QPair<double, double>> peaks;
    for (const megatron::StageEstimate& stage : plan->stages)
        peaks.append({ stage.memory.allocatedMb() / kMbPerGb, stage.memory.totalMb() / kMbPerGb });
    const double limitGib = plan->memory_limit_mb / kMbPerGb;
    connect(series, &QStackedBarSeries::hovered, this, [this, peaks, limitGib](bool status, int index, QBarSet* set) {
        if (!status || index < 0 || index >= peaks.size()) {
            QToolTip::hideText();
            return;
        }
        const QLocale l = QLocale::c();
        QToolTip::showText(QCursor::pos(),
            tr("stage %1: %2 %3 GiB\n%7 %4 GiB, %8 %5 GiB of %6 GiB")
                .arg(index)
                .arg(set->label(), l.toString(set->at(index), 'f', 2), l.toString(peaks[index].first, 'f', 1),
                    l.toString(peaks[index].second, 'f', 1), l.toString(limitGib, 'f', 1))
                .arg(figureLabel(figures::Figure::PlannedPeak), figureLabel(figures::Figure::PeakWithReserve)),
            this);
    });
    auto* x = new QBarCategoryAxis(c);
    x->append(categories);
    auto* y = new QValueAxis(c);
    y->setTitleText(QString::fromStdString(figures::header(figures::Figure::PeakWithReserve, "GiB")));
    setRealRange(y, 0, highest / kMbPerGb * 1.08);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);

    // The limit across every stage: a line on a hidden axis that spans the categories' edges.
    const int n = int(plan->stages.size());
    m_limit = new QLineSeries(c);
    m_limit->setName(tr("limit %1 GiB").arg(QLocale::c().toString(plan->memory_limit_mb / kMbPerGb, 'f', 1)));
    m_limit->append(-0.5, plan->memory_limit_mb / kMbPerGb);
    m_limit->append(n - 0.5, plan->memory_limit_mb / kMbPerGb);
    QPen pen(categoricalColor(2));
    pen.setWidth(2);
    pen.setStyle(Qt::DashLine);
    m_limit->setPen(pen);
    c->addSeries(m_limit);
    auto* limitX = new QValueAxis(c);
    limitX->setRange(-0.5, n - 0.5);
    limitX->setVisible(false);
    c->addAxis(limitX, Qt::AlignTop);
    m_limit->attachAxis(limitX);
    m_limit->attachAxis(y);

    c->setTitle(tr("Memory per stage — %5 %1 GiB, %6 %2 GiB of %3 GiB%4")
                    .arg(QLocale::c().toString(plan->allocated_peak_mb / kMbPerGb, 'f', 1),
                        QLocale::c().toString(plan->device_peak_mb / kMbPerGb, 'f', 1),
                        QLocale::c().toString(plan->memory_limit_mb / kMbPerGb, 'f', 1),
                        plan->fits ? QString() : tr(" — does NOT fit"), figureLabel(figures::Figure::PlannedPeak),
                        figureLabel(figures::Figure::PeakWithReserve)));
    followPalette();
}

StratexPeakChart::StratexPeakChart(QWidget* parent)
    : PaletteChartView(parent)
{
    setAccessibleName(tr("What the worst rank of the selected stratex plan holds at its peak"));
    chart()->setTitle(tr("At the peak"));
    setMinimumHeight(150);
}

QList<QBarSet*> StratexPeakChart::barSets() const
{
    for (QAbstractSeries* series : chart()->series()) {
        if (auto* bars = qobject_cast<QHorizontalStackedBarSeries*>(series))
            return bars->barSets();
    }
    return {};
}

QString StratexPeakChart::hoverText(int index) const
{
    return index >= 0 && index < m_hover.size() ? m_hover[index] : QString();
}

void StratexPeakChart::setPeak(const std::optional<megatron::PeakExplanation>& peak)
{
    QChart* c = chart();
    resetChart(c);
    m_hover.clear();
    if (!peak) {
        c->setTitle(tr("At the peak"));
        return;
    }
    const QLocale l = QLocale::c();
    auto* series = new QHorizontalStackedBarSeries(c);
    int colour = 0;
    for (const megatron::PeakPart& part : megatron::peakParts(*peak)) {
        auto* set = new QBarSet(QString::fromStdString(part.label));
        set->setColor(categoricalColor(colour));
        set->setBorderColor(categoricalColor(colour));
        ++colour;
        *set << part.mb / kMbPerGb;
        series->append(set);
        m_hover << tr("%1: %2 GiB (%3 MB)%4")
                       .arg(QString::fromStdString(part.label), l.toString(part.mb / kMbPerGb, 'f', 2),
                           l.toString(part.mb, 'f', 0), part.device ? tr(", beyond the allocated tensors") : QString());
    }
    c->addSeries(series);
    const QStringList hover = m_hover;
    connect(series, &QHorizontalStackedBarSeries::hovered, this, [this, hover](bool status, int, QBarSet* set) {
        const int index = set ? barSets().indexOf(set) : -1;
        if (!status || index < 0 || index >= hover.size()) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(QCursor::pos(), hover[index], this);
    });
    auto* y = new QBarCategoryAxis(c);
    y->append(tr("stage %1").arg(peak->stage));
    auto* x = new QValueAxis(c);
    x->setTitleText(tr("GiB"));
    setRealRange(x, 0, peak->device_mb / kMbPerGb * 1.05);
    c->addAxis(y, Qt::AlignLeft);
    c->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
    // Two lines: on one, the moment and the two peaks were cut at 1280 × 800 (issue 24).
    c->setTitle(
        tr("At the peak: %1<br>allocated %2 GiB, device %3 GiB")
            .arg(QString::fromStdString(megatron::peakMomentText(*peak)),
                l.toString(peak->allocated_mb / kMbPerGb, 'f', 1), l.toString(peak->device_mb / kMbPerGb, 'f', 1)));
    followPalette();
}

} // namespace stratex::ui
