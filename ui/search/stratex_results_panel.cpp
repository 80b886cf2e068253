// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/stratex_results_panel.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/common/plan_figures.h"
#include "core/hardware/cluster_description.h"
#include "core/megatron/framework_support.h"
#include "core/megatron/memory_ledger_explain.h"
#include "core/megatron/model_time_evidence.h"
#include "core/megatron/search_stats_text.h"
#include "ui/common/numeric_sort_proxy.h"
#include "ui/common/plan_table_view.h"
#include "ui/search/results_panel_layout.h"
#include "ui/search/stratex_layer_strip.h"
#include "ui/search/stratex_memory_chart.h"
#include "ui/search/stratex_plan_table_model.h"

#include "jobs/job_runner.h"

namespace stratex::ui {

namespace {

QString figureLabel(figures::Figure figure)
{
    return QString::fromUtf8(figures::label(figure).data()).toLower();
}

// The figures under the names of their one definition (core/common/plan_figures.h), as the table's
// columns and the Timeline page give them.
QString headline(const megatron::Estimate& e)
{
    const QLocale c = QLocale::c();
    return QObject::tr("%1 s per iteration · %2 tokens/s per GPU · MFU %3 % · %6 %4 GiB · %7 %5 %")
        .arg(c.toString(e.iteration_ms / 1e3, 'f', 3), c.toString(e.tokens_per_s_per_gpu, 'f', 0),
            c.toString(e.mfu * 100, 'f', 1), c.toString(hardware::mbToGib(e.peak_memory_mb), 'f', 1),
            c.toString(e.bubble_fraction * 100, 'f', 1), figureLabel(figures::Figure::PeakWithReserve),
            figureLabel(figures::Figure::PipelineBubble));
}

// An iteration is the pipeline's makespan and what follows it (megatron::Estimate: iteration_ms =
// pipeline_ms + the slowest stage's exposed DP communication and optimizer step + overhead_ms).
QString iterationBreakdown(const megatron::Estimate& e)
{
    const std::string breakdown
        = figures::iterationBreakdown(figures::iterationParts(e.iteration_ms, e.pipeline_ms, e.overhead_ms));
    const std::string_view bubble = figures::toolTip(figures::Figure::PipelineBubble);
    return QString(QString::fromStdString(breakdown) + QLatin1Char('\n')
        + QString::fromUtf8(bubble.data(), qsizetype(bubble.size())));
}

} // namespace

StratexResultsPanel::StratexResultsPanel(controllers::StratexSearchController* controller, QWidget* parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_best(new QLabel(this))
    , m_stats(new QLabel(this))
    , m_model(new StratexPlanTableModel(this))
    , m_proxy(new NumericSortProxy(this))
    , m_table(new QTableView(this))
    , m_strip(new StratexLayerStrip(this))
    , m_memory(new StratexMemoryChart(this))
    , m_peak(new StratexPeakChart(this))
    , m_save(new QPushButton(tr("Save Plan…"), this))
    , m_ranks(new QPushButton(tr("Show rank grid"), this))
    , m_timeline(new QPushButton(tr("Show timeline"), this))
    , m_savePlanAction(new QAction(tr("Selected Stratex Plan as Plan File…"), this))
{
    m_best->setObjectName(QStringLiteral("stratexBestPlan"));
    m_best->setWordWrap(true);
    m_best->setTextFormat(Qt::RichText);
    m_stats->setObjectName(QStringLiteral("stratexSearchStats"));
    m_stats->setWordWrap(true);
    m_proxy->setSourceModel(m_model);
    m_table->setObjectName(QStringLiteral("stratexPlanTable"));
    m_table->setAccessibleName(tr("Stratex plans"));
    setUpPlanTable(m_table, m_proxy);
    m_strip->setObjectName(QStringLiteral("stratexLayerStrip"));
    m_strip->setAccessibleName(tr("Stages and layers of the selected stratex plan"));
    m_memory->setObjectName(QStringLiteral("stratexMemoryChart"));
    m_peak->setObjectName(QStringLiteral("stratexPeakChart"));
    m_save->setObjectName(QStringLiteral("saveStratexPlanButton"));
    m_save->setToolTip(tr("Write the selected plan as a stratex plan file (model, cluster, Megatron strategy, "
                          "prediction), which stratex-cli evaluate and export read"));
    m_ranks->setObjectName(QStringLiteral("showStratexRanksButton"));
    m_ranks->setToolTip(tr("Show the selected plan's Megatron rank grid (TP, CP, EP, DP, PP) on the Ranks page"));
    m_timeline->setObjectName(QStringLiteral("showStratexTimelineButton"));
    m_timeline->setToolTip(tr("Simulate the selected plan's pipeline (1F1B, interleaved with its model chunks, or "
                              "ZB-H1) on the Timeline page"));
    for (QPushButton* button : { m_save, m_ranks, m_timeline })
        button->setEnabled(false);

    auto* bar = new QHBoxLayout;
    bar->addStretch(1);
    bar->addWidget(m_save);
    bar->addWidget(m_ranks);
    bar->addWidget(m_timeline);
    // The memory per stage and what the worst rank holds at its peak, one tab each, their legends
    // in wrapping rows: one part of the shared layout. Stacked, at 1280 × 800 both charts were too
    // low for their axis titles and labels, and their one-row legends cut every label (issue 24).
    auto* memoryParts = new QTabWidget(this);
    memoryParts->setObjectName(QStringLiteral("stratexMemoryTabs"));
    memoryParts->setDocumentMode(true);
    memoryParts->setAccessibleName(tr("Memory of the selected plan"));
    memoryParts->tabBar()->setAccessibleName(tr("Memory of the selected plan"));
    memoryParts->addTab(m_memory->withWrappingLegend(), tr("Memory per stage"));
    memoryParts->addTab(m_peak->withWrappingLegend(), tr("At the peak"));
    memoryParts->setTabToolTip(0, m_memory->accessibleName());
    memoryParts->setTabToolTip(1, m_peak->accessibleName());
    layOutResultsPanel(this, { m_best, m_stats, bar, m_table, m_strip, memoryParts });

    connect(m_save, &QPushButton::clicked, this, &StratexResultsPanel::savePlanWithDialog);
    connect(m_savePlanAction, &QAction::triggered, this, &StratexResultsPanel::savePlanWithDialog);
    connect(m_ranks, &QPushButton::clicked, this, &StratexResultsPanel::showSelectedPlanRanks);
    connect(m_timeline, &QPushButton::clicked, this, &StratexResultsPanel::showSelectedPlanTimeline);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) { showPlan(m_model->plan(m_proxy->mapToSource(current).row())); });

    using controllers::StratexSearchController;
    connect(m_controller, &StratexSearchController::searchStarted, this, [this](const QString& source) {
        m_best->setText(QFileInfo(source).isFile() ? tr("Costing the plan %1 with the stratex cost model…")
                                                         .arg(QFileInfo(source).fileName().toHtmlEscaped())
                                                   : tr("Searching Megatron strategies with the stratex cost model…"));
        m_stats->clear();
        // The previous run's plans go at once: a header and a table always come from one run.
        m_model->setPlans({});
        showPlan(nullptr);
    });
    connect(m_controller, &StratexSearchController::searchFinished, this,
        [this](std::shared_ptr<const controllers::StratexSearchOutcome> outcome) { showOutcome(*outcome); });
    connect(m_controller, &StratexSearchController::searchFailed, this, [this](const QString& message) {
        m_best->setText(tr("<b>Search failed</b>: %1").arg(message.toHtmlEscaped()));
    });
    connect(m_controller, &StratexSearchController::searchCancelled, this,
        [this] { m_best->setText(m_best->text() + tr("<br><i>Cancelled.</i>")); });
    showPlan(nullptr);
}

QString StratexResultsPanel::bestText() const
{
    return m_best->text();
}

QString StratexResultsPanel::statsText() const
{
    return m_stats->text();
}

void StratexResultsPanel::setMessage(const QString& html)
{
    m_best->setText(html);
}

const megatron::Estimate* StratexResultsPanel::selectedPlan() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? m_model->plan(m_proxy->mapToSource(current).row()) : nullptr;
}

void StratexResultsPanel::showOutcome(const controllers::StratexSearchOutcome& outcome)
{
    const megatron::StrategySearchResult& result = outcome.result;
    const QLocale c = QLocale::c();
    // A long name is elided in the middle: an unbroken 100 kB name widened the word-wrapped label
    // until grab() failed (issue 26).
    const QString name = QFontMetrics(m_best->font())
                             .elidedText(QString::fromStdString(outcome.model.name), Qt::ElideMiddle, 400);
    const QString target = tr("%1 on %2 × %3 %4, global batch %5 × %6 tokens, %7 GiB per GPU")
                               .arg(name)
                               .arg(outcome.cluster.num_nodes)
                               .arg(outcome.cluster.gpus_per_node)
                               .arg(QString::fromStdString(outcome.cluster.gpu.name))
                               .arg(outcome.global_batch_size)
                               .arg(outcome.model.seq_length)
                               .arg(c.toString(hardware::mbToGib(outcome.memory_limit_mb), 'f', 1));
    // How far the measured runs of this model were predicted: above the table when a run was more than
    // 15 % off, in every plan's evidence tooltip always.
    const megatron::ModelTimeEvidence modelTime = megatron::modelTimeEvidence(outcome.model);
    if (!result.best.empty()) {
        const megatron::Estimate& best = result.best.front();
        QString evidence;
        if (!result.evidence.empty() && result.evidence.front().extrapolated) {
            QStringList notes;
            for (const std::string& note : result.evidence.front().notes)
                notes << QString::fromStdString(note).toHtmlEscaped();
            evidence = QStringLiteral("<br>") + tr("⚠ Extrapolated: %1").arg(notes.join(QStringLiteral("; ")));
        }
        if (modelTime.off)
            evidence += QStringLiteral("<br>⚠ ") + QString::fromStdString(modelTime.note).toHtmlEscaped();
        m_best->setText(tr("<b>%1</b>: %2<br>%3")
                            .arg(outcome.plan_file ? tr("The plan") : tr("Best plan"), headline(best),
                                QString::fromStdString(best.strategy.notation()).toHtmlEscaped())
            + evidence);
        m_best->setToolTip(iterationBreakdown(best));
    } else {
        QString text
            = tr("<b>No strategy fits</b> in %1 GiB per GPU.").arg(c.toString(hardware::mbToGib(outcome.memory_limit_mb), 'f', 1));
        if (result.least_memory)
            text += tr(" The least memory is %1 GiB (%2).")
                        .arg(c.toString(hardware::mbToGib(result.least_memory->peak_memory_mb), 'f', 1),
                            QString::fromStdString(result.least_memory->strategy.notation()).toHtmlEscaped());
        m_best->setText(text);
    }
    QString stats;
    if (outcome.plan_file) {
        stats = tr("The plan file %1, costed with the stratex cost model: %2.").arg(outcome.source, target);
    } else {
        const megatron::StrategySearchStats& s = result.stats;
        // Every candidate of a search runs one framework: the refusals are its project's rules and
        // Megatron's (framework_support.h), named as the command line names them.
        const megatron::Framework framework = !result.best.empty() ? result.best.front().strategy.framework
            : result.least_memory                                  ? result.least_memory->strategy.framework
                                                                   : megatron::Framework::MegatronCore;
        // The command line's sentence (search_stats_text.h).
        stats = tr("Stratex cost model: %1. %2.")
                    .arg(target,
                        QString::fromStdString(
                            megatron::searchStatsText(s, framework, outcome.search_time_s, outcome.threads)));
    }
    stats += tr("\nEstimates from the model's shape and the GPU's datasheet (README: Two cost models, and how far to "
                "trust them).");
    for (const QString& note : outcome.notes)
        stats += QStringLiteral("\n") + note;
    if (!result.best.empty()) {
        for (const std::string& note : result.best.front().notes)
            stats += QStringLiteral("\n") + QString::fromStdString(note);
    }
    m_stats->setText(stats);

    m_model->setPlans(result.best, outcome.robustness, result.evidence, result.twins);
    m_model->setModelTimeNote(QString::fromStdString(modelTime.note));
    m_table->sortByColumn(StratexPlanTableModel::RankColumn, Qt::AscendingOrder);
    if (m_proxy->rowCount() > 0)
        m_table->selectRow(0);
    else
        showPlan(nullptr);
}

// The plan's peak explained on the outcome's model and cluster (one more simulation of its
// pipeline; a search keeps no explanation with its plans).
std::optional<megatron::PeakExplanation> StratexResultsPanel::planPeak(const megatron::Estimate& plan) const
{
    if (plan.peak)
        return plan.peak;
    const std::shared_ptr<const controllers::StratexSearchOutcome> outcome = m_controller->outcome();
    if (!outcome)
        return std::nullopt;
    try {
        return megatron::explainPeak(
            outcome->model, plan.strategy, hardware::HardwareModel(outcome->cluster, outcome->efficiency), plan);
    } catch (const std::exception&) {
        return std::nullopt; // a plan the simulator refuses: the memory chart still shows its stages
    }
}

void StratexResultsPanel::showPlan(const megatron::Estimate* plan)
{
    m_strip->setPlan(plan ? std::optional<megatron::Estimate>(*plan) : std::nullopt);
    m_memory->setPlan(plan);
    m_peak->setPeak(plan ? planPeak(*plan) : std::nullopt);
    for (QPushButton* button : { m_save, m_ranks, m_timeline })
        button->setEnabled(plan != nullptr);
    Q_EMIT selectionChanged();
}

std::optional<controllers::PlanExport> StratexResultsPanel::planExport(
    exporting::ExportFormat target, QString* error) const
{
    const megatron::Estimate* plan = selectedPlan();
    if (!plan) {
        if (error)
            *error = tr("no stratex plan selected: run the search and select a plan");
        return std::nullopt;
    }
    return m_controller->exportPlan(*plan, target, error);
}

QString StratexResultsPanel::defaultPlanFileName() const
{
    const auto outcome = m_controller->outcome();
    const megatron::Estimate* plan = selectedPlan();
    if (!outcome || !plan)
        return QStringLiteral("stratex-plan.json");
    const megatron::ParallelStrategy& s = plan->strategy;
    return QStringLiteral("%1-tp%2-pp%3-dp%4.json")
        .arg(QString::fromStdString(outcome->model.name))
        .arg(s.tp)
        .arg(s.pp)
        .arg(s.dp);
}

bool StratexResultsPanel::savePlan(const QString& path, QString* error) const
{
    const megatron::Estimate* plan = selectedPlan();
    if (!plan) {
        if (error)
            *error = tr("no plan selected: run the search and select a plan");
        return false;
    }
    return m_controller->savePlan(*plan, path, error);
}

void StratexResultsPanel::savePlanWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Plan"), defaultPlanFileName(), tr("Stratex plan files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!savePlan(path, &error)) {
        QMessageBox::warning(this, tr("Save Plan"), error);
        return;
    }
    if (const megatron::Estimate* plan = selectedPlan())
        Q_EMIT statusMessage(tr("Wrote %1 for %2").arg(QFileInfo(path).fileName(), m_controller->planIdentity(*plan)));
}

void StratexResultsPanel::showSelectedPlanTimeline()
{
    if (const megatron::Estimate* plan = selectedPlan())
        m_controller->simulatePlan(*plan);
}

void StratexResultsPanel::showSelectedPlanRanks()
{
    if (const megatron::Estimate* plan = selectedPlan()) {
        if (const auto layout = m_controller->rankLayout(*plan))
            Q_EMIT rankLayoutRequested(*layout);
    }
}

} // namespace stratex::ui
