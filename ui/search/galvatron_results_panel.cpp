// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/galvatron_results_panel.h"

#include <optional>

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/galvatron/search_inputs.h"
#include "ui/common/bundled_examples.h"
#include "ui/common/numeric_sort_proxy.h"
#include "ui/search/results_panel_layout.h"
#include "ui/common/plan_table_view.h"
#include "ui/search/export_model_dialog.h"
#include "ui/search/layer_strategy_strip.h"
#include "ui/search/plan_table_model.h"
#include "ui/search/stage_memory_chart.h"

#include "core/common/plan_figures.h"
#include "core/galvatron/memory_budget.h"

namespace stratex::ui {

using namespace stratex::galvatron;

namespace {

// The figures carry their one definition's names (core/common/plan_figures.h): the table's columns
// say the same.
QString planHeadline(const Plan& plan, int reserveMb)
{
    return QObject::tr("%1 samples/s · %2 s per iteration · global batch %3 in %4 micro-batches · pp %5 · %6 %7 MB")
        .arg(QLocale::c().toString(plan.throughput_samples_per_s, 'f', 3),
            QLocale::c().toString(plan.time_cost_s, 'f', 4))
        .arg(plan.gbsz)
        .arg(plan.chunks)
        .arg(plan.pp)
        .arg(QString::fromUtf8(figures::label(figures::Figure::PlannedPeak).data()).toLower())
        .arg(int(figures::plannedPeakMb(plan.peakMemoryMb(), reserveMb)));
}

int reserveOf(const galvatron::SearchSettings& settings)
{
    return galvatron::memoryBudget(settings.memory_constraint_gb, settings.allocator_reserve_fraction).reserve_mb;
}

} // namespace

GalvatronResultsPanel::GalvatronResultsPanel(controllers::SearchController* controller, QWidget* parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_exportModel(new ExportModelDialog(this))
    , m_best(new QLabel(this))
    , m_stats(new QLabel(this))
    , m_planSet(new QComboBox(this))
    , m_planModel(new PlanTableModel(this))
    , m_proxy(new NumericSortProxy(this))
    , m_table(new QTableView(this))
    , m_strip(new LayerStrategyStrip(this))
    , m_memory(new StageMemoryChart(this))
    , m_timeline(new QPushButton(tr("Show timeline"), this))
    , m_ranks(new QPushButton(tr("Show rank grid"), this))
{
    m_best->setObjectName(QStringLiteral("bestPlan"));
    m_best->setWordWrap(true);
    m_best->setTextFormat(Qt::RichText);
    m_best->setText(tr("Choose the folder of Galvatron profiles and run the search."));
    m_stats->setObjectName(QStringLiteral("searchStats"));
    m_stats->setWordWrap(true);
    m_planSet->setObjectName(QStringLiteral("planSetBox"));
    m_planSet->setAccessibleName(tr("Plans shown"));
    m_planSet->addItems({ tr("Top plans"), tr("Pareto set (throughput vs peak memory)") });
    m_proxy->setSourceModel(m_planModel);
    m_table->setObjectName(QStringLiteral("planTable"));
    m_table->setAccessibleName(tr("Plans"));
    setUpPlanTable(m_table, m_proxy);
    m_strip->setObjectName(QStringLiteral("layerStrip"));
    m_strip->setAccessibleName(tr("Strategy per layer of the selected plan"));
    m_memory->setObjectName(QStringLiteral("stageMemoryChart"));
    m_timeline->setObjectName(QStringLiteral("showTimelineButton"));
    m_timeline->setEnabled(false);
    m_timeline->setToolTip(tr("Simulate the selected plan's pipeline (uniform micro-batches) on the Timeline page"));
    m_ranks->setObjectName(QStringLiteral("showRanksButton"));
    m_ranks->setEnabled(false);
    m_ranks->setToolTip(tr("Show the selected plan's Megatron rank grid (world, TP, PP) on the Ranks page"));

    // One Export button with a menu: four buttons made the page too wide for a 1280 px window.
    auto* exportButton = new QToolButton(this);
    exportButton->setObjectName(QStringLiteral("exportPlanButton"));
    exportButton->setText(tr("Export"));
    exportButton->setToolTip(
        tr("Write the selected plan for Galvatron, PaddleNLP, Megatron-LM, PyTorch, torchtitan or Megatron-Bridge"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* exportMenu = new QMenu(exportButton);
    for (const exporting::ExportFormat format : exporting::exportFormats()) {
        const QString label = QString::fromUtf8(exporting::exportFormatTitle(format).data()) + QStringLiteral("…");
        const ExportKind exportKind = format;
        QAction* item = exportMenu->addAction(label);
        connect(item, &QAction::triggered, this, [this, exportKind] { exportWithDialog(exportKind); });
    }
    exportMenu->addSeparator();
    QAction* modelItem = exportMenu->addAction(tr("Model and GPU for Exports…"));
    connect(modelItem, &QAction::triggered, m_exportModel, &QDialog::open);
    exportButton->setMenu(exportMenu);
    auto* planBar = new QHBoxLayout;
    planBar->addWidget(m_planSet, 1);
    planBar->addWidget(exportButton);
    planBar->addWidget(m_ranks);
    planBar->addWidget(m_timeline);

    // The chart's legend in wrapping rows: one row cut its labels at the default size (issue 24).
    layOutResultsPanel(this, { m_best, m_stats, planBar, m_table, m_strip, m_memory->withWrappingLegend() });

    connect(m_planSet, &QComboBox::currentIndexChanged, this, &GalvatronResultsPanel::showPlanSet);
    connect(m_timeline, &QPushButton::clicked, this, &GalvatronResultsPanel::showSelectedPlanTimeline);
    connect(m_ranks, &QPushButton::clicked, this, &GalvatronResultsPanel::showSelectedPlanRanks);
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            showEvaluation(nullptr);
            m_controller->selectPlan(m_planModel->plan(m_proxy->mapToSource(current).row()));
        });

    using controllers::SearchController;
    // The previous run's plans go when a new one starts: a header and a table always come from one
    // run (a "Best so far" over the last search's table, or a cancelled run's header over it, did not).
    connect(m_controller, &SearchController::searchStarted, this, &GalvatronResultsPanel::clearPlans);
    connect(m_controller, &SearchController::bestSoFar, this, &GalvatronResultsPanel::showBestSoFar);
    connect(m_controller, &SearchController::searchFinished, this,
        [this](std::shared_ptr<const controllers::SearchOutcome> outcome) { showOutcome(*outcome); });
    connect(m_controller, &SearchController::searchFailed, this, [this](const QString& message) {
        m_best->setText(tr("<b>Search failed</b>: %1").arg(message.toHtmlEscaped()));
    });
    connect(m_controller, &SearchController::searchCancelled, this,
        [this] { m_best->setText(m_best->text() + tr("<br><i>Cancelled.</i>")); });
    connect(m_controller, &SearchController::evaluationReady, this,
        [this](const galvatron::Evaluation& evaluation) { showEvaluation(&evaluation); });
    connect(m_controller, &SearchController::selectionCleared, this, [this] { showEvaluation(nullptr); });
}

GalvatronResultsPanel::~GalvatronResultsPanel() = default;

QString GalvatronResultsPanel::bestText() const
{
    return m_best->text();
}

QString GalvatronResultsPanel::statsText() const
{
    return m_stats->text();
}

void GalvatronResultsPanel::setMessage(const QString& html)
{
    m_best->setText(html);
}

void GalvatronResultsPanel::showSearching()
{
    m_best->setText(tr("Searching…"));
    m_stats->clear();
}

void GalvatronResultsPanel::clearPlans()
{
    m_planModel->setPlans({});
    m_controller->selectPlan(nullptr);
    showEvaluation(nullptr);
}

void GalvatronResultsPanel::showCostingStrategy(const QString& path)
{
    m_best->setText(tr("Costing the strategy %1…").arg(QFileInfo(path).fileName().toHtmlEscaped()));
    m_stats->clear();
    clearPlans();
}

const SearchResult* GalvatronResultsPanel::result() const
{
    return m_controller->outcome() ? &m_controller->outcome()->result : nullptr;
}

const Plan* GalvatronResultsPanel::selectedPlan() const
{
    const Evaluation* evaluation = m_controller->selectedEvaluation();
    return evaluation ? &evaluation->plan : nullptr;
}

void GalvatronResultsPanel::showBestSoFar(const Plan& plan, int reserveMb)
{
    m_best->setText(tr("<b>Best so far</b>: %1<br>%2")
                        .arg(planHeadline(plan, reserveMb), QString::fromStdString(plan.layerSummary()).toHtmlEscaped()));
}

void GalvatronResultsPanel::showOutcome(const controllers::SearchOutcome& outcome)
{
    const SearchResult& result = outcome.result;
    // What the results are for, first: "llama2-13b on 2 × 8 A100-40GB" (a synthesized set names
    // both), else the profiles' folder.
    const QString subject = outcome.description.model
        ? modelOnCluster(outcome.description.model->name, outcome.cluster)
        : tr("the profiles in %1").arg(QFileInfo(outcome.profiles_dir).fileName());
    if (result.best) {
        m_best->setText(
            tr("<b>Best plan</b> for <b>%4</b>: %1<br>%2 · embedding %3")
                .arg(planHeadline(*result.best, reserveOf(outcome.settings)), QString::fromStdString(result.best->layerSummary()).toHtmlEscaped(),
                    embeddingSummary(*result.best), subject.toHtmlEscaped()));
    } else {
        m_best->setText(tr("<b>No strategy fits</b> in %1 GB per GPU with these settings.")
                            .arg(outcome.settings.memory_constraint_gb));
    }
    QString stats = outcome.strategy_file.isEmpty()
        ? tr("%1 tasks searched in %2 s on %3 threads: %4 knapsacks where Galvatron runs %5.")
              .arg(result.stats.tasks)
              .arg(QLocale::c().toString(result.stats.search_time_s, 'f', 3))
              .arg(result.stats.threads)
              .arg(result.stats.dp_calls)
              .arg(result.stats.galvatron_dp_calls)
        : tr("The strategy %1, costed with Galvatron's cost model.").arg(outcome.strategy_file);
    if (outcome.estimated_profiles)
        stats += tr("\nEstimated profiles (stratex-cli profile synth): made from the model's shape and the GPU's "
                    "datasheet, not measured. Profile the cluster before planning a real run.");
    for (const std::string& note : result.notes)
        stats += QStringLiteral("\n") + QString::fromStdString(note);
    m_stats->setText(stats);
    showPlanSet();
}

void GalvatronResultsPanel::showPlanSet()
{
    const std::shared_ptr<const controllers::SearchOutcome> outcome = m_controller->outcome();
    m_planModel->setPlans(
        m_controller->plans(m_planSet->currentIndex() == 0 ? controllers::PlanSet::Top : controllers::PlanSet::Pareto),
        outcome ? reserveOf(outcome->settings) : 0);
    m_table->sortByColumn(PlanTableModel::ThroughputColumn, Qt::DescendingOrder);
    if (m_proxy->rowCount() > 0)
        m_table->selectRow(0);
    else
        m_controller->selectPlan(nullptr);
}

void GalvatronResultsPanel::showEvaluation(const Evaluation* evaluation)
{
    m_strip->setEvaluation(evaluation ? std::optional<Evaluation>(*evaluation) : std::nullopt);
    m_memory->setEvaluation(evaluation);
    m_timeline->setEnabled(evaluation != nullptr);
    m_ranks->setEnabled(evaluation != nullptr);
}

void GalvatronResultsPanel::showSelectedPlanTimeline()
{
    m_controller->simulateSelectedPlan();
}

void GalvatronResultsPanel::showSelectedPlanRanks()
{
    if (const auto layout = m_controller->selectedRankLayout())
        Q_EMIT rankLayoutRequested(*layout);
}

QString GalvatronResultsPanel::defaultExportName(ExportKind kind) const
{
    return m_controller->defaultExportName(kind);
}

std::optional<exporting::ExportContext> GalvatronResultsPanel::exportFallback(QString* error) const
{
    if (!m_exportModel->confirmed() || !m_controller->outcome())
        return exporting::ExportContext();
    try {
        return m_exportModel->context(m_controller->outcome()->settings);
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromUtf8(failure.what());
        return std::nullopt;
    }
}

bool GalvatronResultsPanel::exportPlan(
    ExportKind kind, const QString& path, QString* error, QStringList* warnings) const
{
    std::optional<exporting::ExportContext> fallback = exportFallback(error);
    if (!fallback)
        return false;
    const bool written = m_controller->exportSelectedPlan(kind, path, error, warnings, &*fallback);
    if (!written && error && !m_exportModel->confirmed() && exporting::exportNeedsModel(kind))
        *error += tr(" Or give them in Export > Model and GPU for Exports….");
    return written;
}

bool GalvatronResultsPanel::exportNeedsModelDialog(ExportKind kind) const
{
    const auto outcome = m_controller->outcome();
    return outcome && exporting::exportNeedsModel(kind) && !outcome->description.model && !m_exportModel->confirmed();
}

std::optional<controllers::PlanExport> GalvatronResultsPanel::planExport(ExportKind target, QString* error) const
{
    std::optional<exporting::ExportContext> fallback = exportFallback(error);
    if (!fallback)
        return std::nullopt;
    std::optional<controllers::PlanExport> out = m_controller->exportedSelectedPlan(target, error, &*fallback);
    if (!out && error && m_controller->selectedEvaluation() && !m_exportModel->confirmed()
        && exporting::exportNeedsModel(target))
        *error += tr(" Or give them in Export > Model and GPU for Exports….");
    return out;
}

bool GalvatronResultsPanel::askForModelThen(ExportKind target, const std::function<void()>& then)
{
    // Measured profiles: ask for the model and the GPU first, then export.
    if (!exportNeedsModelDialog(target))
        return false;
    m_exportModel->setReason(tr("%1 needs the model's architecture, which measured profiles do not say. Choose "
                                "a preset and change what differs; the searched shape stays the search's.")
                                 .arg(QString::fromUtf8(exporting::exportFormatTitle(target).data())));
    connect(m_exportModel, &QDialog::accepted, this, then, Qt::SingleShotConnection);
    m_exportModel->open();
    return true;
}

void GalvatronResultsPanel::exportWithDialog(ExportKind kind)
{
    if (askForModelThen(kind, [this, kind] { exportWithDialog(kind); }))
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export plan"), defaultExportName(kind));
    if (path.isEmpty())
        return;
    QString error;
    QStringList warnings;
    if (!exportPlan(kind, path, &error, &warnings)) {
        QMessageBox::warning(this, tr("Export plan"), error);
        return;
    }
    Q_EMIT statusMessage(tr("Wrote %1").arg(path));
    if (!warnings.isEmpty())
        QMessageBox::warning(
            this, tr("Export plan"), tr("Wrote %1, but:\n\n%2").arg(path, warnings.join(QStringLiteral("\n\n"))));
}

} // namespace stratex::ui
