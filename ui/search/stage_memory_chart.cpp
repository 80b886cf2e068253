// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/stage_memory_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QLocale>
#include <QStackedBarSeries>
#include <QValueAxis>

#include "ui/common/chart_reset.h"

namespace stratex::ui {

StageMemoryChart::StageMemoryChart(QWidget* parent)
    : PaletteChartView(parent)
{
    setAccessibleName(tr("Memory per pipeline stage"));
    chart()->setTitle(tr("Memory per stage"));
    setMinimumHeight(200);
}

void StageMemoryChart::setEvaluation(const galvatron::Evaluation* evaluation)
{
    QChart* c = chart();
    resetChart(c);
    if (!evaluation)
        return;

    auto* layers = new QBarSet(tr("layers"));
    auto* embedding = new QBarSet(tr("embedding / LM head"));
    auto* buffer = new QBarSet(tr("global buffer"));
    auto* reserve = new QBarSet(tr("allocator reserve"));
    layers->setColor(QColor(0x4E, 0x79, 0xA7));
    embedding->setColor(QColor(0xF2, 0x8E, 0x2B));
    buffer->setColor(QColor(0x76, 0xB7, 0xB2));
    reserve->setColor(QColor(0xBA, 0xB0, 0xAC));
    QStringList categories;
    int highest = 0;
    for (const galvatron::StageBreakdown& stage : evaluation->stages) {
        *layers << stage.layer_memory_mb;
        *embedding << stage.embedding_memory_mb;
        *buffer << stage.global_buffer_mb;
        *reserve << std::max(
            0, stage.memory_cost_mb - stage.layer_memory_mb - stage.embedding_memory_mb - stage.global_buffer_mb);
        categories << tr("stage %1").arg(stage.stage);
        highest = std::max(highest, stage.memory_cost_mb);
    }
    auto* series = new QStackedBarSeries(c);
    series->append({ layers, embedding, buffer, reserve });
    c->addSeries(series);
    auto* x = new QBarCategoryAxis(c);
    x->append(categories);
    auto* y = new QValueAxis(c);
    y->setTitleText(tr("MB"));
    setIntegerRange(y, 0, std::max(highest, evaluation->budget.total_mb) * 1.05);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    c->setTitle(tr("Memory per stage — %1 GB per GPU: %2 MB for the search, %3 MB reserve%4")
                    .arg(QLocale::c().toString(evaluation->budget.total_mb / 1024.0, 'f', 0))
                    .arg(evaluation->budget.dp_budget_mb)
                    .arg(evaluation->budget.reserve_mb)
                    .arg(evaluation->fits ? QString() : tr(" — does NOT fit")));
    followPalette();
}

} // namespace stratex::ui
