// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/stage_memory_chart.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QPen>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include "core/common/plan_figures.h"
#include "ui/common/chart_reset.h"

namespace stratex::ui {

StageMemoryChart::StageMemoryChart(QWidget* parent)
    : PaletteChartView(parent)
{
    setAccessibleName(tr("Memory per pipeline stage"));
    chart()->setTitle(tr("Memory per stage"));
    setMinimumHeight(200);
    const std::string_view tip = figures::toolTip(figures::Figure::PlannedPeak);
    setToolTip(QString::fromUtf8(tip.data(), qsizetype(tip.size())));
}

QString StageMemoryChart::barsLabel()
{
    return QString::fromStdString(figures::header(figures::Figure::PlannedPeak, "MB"));
}

QString StageMemoryChart::stageToolTip(int index) const
{
    return index >= 0 && index < m_stageToolTips.size() ? m_stageToolTips[index] : QString();
}

void StageMemoryChart::setEvaluation(const galvatron::Evaluation* evaluation)
{
    QChart* c = chart();
    resetChart(c);
    m_stageToolTips.clear();
    m_plannedPeakMb = 0;
    if (!evaluation)
        return;

    const galvatron::MemoryBudget& budget = evaluation->budget;
    const QLocale l = QLocale::c();
    auto* layers = new QBarSet(tr("layers"));
    auto* embedding = new QBarSet(tr("embedding / LM head"));
    auto* buffer = new QBarSet(tr("global buffer"));
    layers->setColor(QColor(0x4E, 0x79, 0xA7));
    embedding->setColor(QColor(0xF2, 0x8E, 0x2B));
    buffer->setColor(QColor(0x76, 0xB7, 0xB2));
    QStringList categories;
    int highest = 0;
    for (const galvatron::StageBreakdown& stage : evaluation->stages) {
        *layers << stage.layer_memory_mb;
        *embedding << stage.embedding_memory_mb;
        *buffer << stage.global_buffer_mb;
        const int used = stage.layer_memory_mb + stage.embedding_memory_mb + stage.global_buffer_mb;
        categories << tr("stage %1").arg(stage.stage);
        highest = std::max(highest, used);
        const QString planned = QString::fromUtf8(figures::label(figures::Figure::PlannedPeak).data());
        const QString withReserve = QString::fromUtf8(figures::label(figures::Figure::PeakWithReserve).data());
        m_stageToolTips << tr("Stage %1: %10 %2 MB of %3 MB the search allows (%4 %)\nlayers %5 MB · embedding / LM "
                              "head %6 MB · global buffer %7 MB\n%11 %8 MB (Galvatron's memory_cost): these plus "
                              "the %9 MB allocator reserve")
                               .arg(stage.stage)
                               .arg(used)
                               .arg(budget.dp_budget_mb)
                               .arg(l.toString(budget.dp_budget_mb > 0 ? 100.0 * used / budget.dp_budget_mb : 0.0,
                                   'f', 1))
                               .arg(stage.layer_memory_mb)
                               .arg(stage.embedding_memory_mb)
                               .arg(stage.global_buffer_mb)
                               .arg(stage.memory_cost_mb)
                               .arg(budget.reserve_mb)
                               .arg(planned, withReserve);
    }
    m_plannedPeakMb = highest;
    auto* series = new QStackedBarSeries(c);
    series->append({ layers, embedding, buffer });
    c->addSeries(series);
    connect(series, &QStackedBarSeries::hovered, this, [this](bool status, int index, QBarSet*) {
        if (status)
            QToolTip::showText(QCursor::pos(), stageToolTip(index), this);
        else
            QToolTip::hideText();
    });

    // The limit and the reserve over the bars' width (a category axis puts bar i at x = i).
    const double left = -0.5;
    const double right = double(categories.size()) - 0.5;
    auto* limit = new QLineSeries(c);
    limit->setName(tr("search limit %1 MB").arg(budget.dp_budget_mb));
    limit->append(left, budget.dp_budget_mb);
    limit->append(right, budget.dp_budget_mb);
    QPen limitPen(QColor(0xE1, 0x57, 0x59));
    limitPen.setWidth(2);
    limit->setPen(limitPen);
    auto* reserveTop = new QLineSeries;
    reserveTop->append(left, budget.total_mb);
    reserveTop->append(right, budget.total_mb);
    auto* reserveBottom = new QLineSeries;
    reserveBottom->append(left, budget.dp_budget_mb);
    reserveBottom->append(right, budget.dp_budget_mb);
    auto* reserve = new QAreaSeries(reserveTop, reserveBottom);
    // The area does not own its edges: they go with it when the chart is reset.
    reserveTop->setParent(reserve);
    reserveBottom->setParent(reserve);
    reserve->setName(tr("allocator reserve %1 MB").arg(budget.reserve_mb));
    QColor reserveColour(0xBA, 0xB0, 0xAC);
    reserveColour.setAlpha(110);
    reserve->setBrush(reserveColour);
    reserve->setPen(Qt::NoPen);
    c->addSeries(reserve);
    c->addSeries(limit);

    auto* x = new QBarCategoryAxis(c);
    x->append(categories);
    auto* y = new QValueAxis(c);
    y->setTitleText(barsLabel());
    setIntegerRange(y, 0, std::max(highest, budget.total_mb) * 1.05);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*> { series, reserve, limit }) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    c->setTitle(tr("%1 per stage — %2 GB per GPU: %3 MB for the plan, %4 MB allocator reserve%5")
                    .arg(QString::fromUtf8(figures::label(figures::Figure::PlannedPeak).data()))
                    .arg(l.toString(budget.total_mb / 1024.0, 'f', 0))
                    .arg(budget.dp_budget_mb)
                    .arg(budget.reserve_mb)
                    .arg(evaluation->fits ? QString() : tr(" — does NOT fit")));
    followPalette();
}

} // namespace stratex::ui
