// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/search_page.h"

#include <utility>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/cost/cost_model.h"
#include "core/perf/plan_file.h"
#include "core/planner/galvatron_layer_cost_model.h"
#include "core/search/plan_rank_layout.h"
#include "core/search/plan_timeline.h"
#include "core/search/search_engine.h"
#include "core/search/search_inputs.h"
#include "core/search/search_setting_table.h"
#include "core/search/search_work.h"
#include "core/search/strategy_file.h"
#include "core/sim/simulator.h"
#include "ui/common/bundled_examples.h"
#include "ui/common/long_work_question.h"
#include "ui/common/numeric_sort_proxy.h"
#include "ui/common/plan_table_view.h"
#include "ui/search/export_model_dialog.h"
#include "ui/search/layer_strategy_strip.h"
#include "ui/search/plan_table_model.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stage_memory_chart.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/search/synthesize_dialog.h"

#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::search;

namespace {

QString planHeadline(const Plan& plan)
{
    return QObject::tr("%1 samples/s · %2 s per iteration · global batch %3 in %4 micro-batches · pp %5 · peak %6 MB")
        .arg(QLocale::c().toString(plan.throughput_samples_per_s, 'f', 3),
            QLocale::c().toString(plan.time_cost_s, 'f', 4))
        .arg(plan.gbsz)
        .arg(plan.chunks)
        .arg(plan.pp)
        .arg(plan.peakMemoryMb());
}

} // namespace

SearchPage::SearchPage(QWidget* parent)
    : Page(parent)
    , m_controller(new controllers::SearchController(this))
    , m_form(new SearchSettingsForm(this))
    , m_exportModel(new ExportModelDialog(this))
    , m_run(new QPushButton(tr("Run search"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_synthesize(new QPushButton(tr("Synthesize…"), this))
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
    , m_stratex(new controllers::StratexSearchController(this))
    , m_stratexPanel(new StratexResultsPanel(m_stratex, this))
    , m_resultsStack(new QStackedWidget(this))
{
    m_run->setObjectName(QStringLiteral("runSearchButton"));
    m_cancel->setObjectName(QStringLiteral("cancelSearchButton"));
    m_cancel->setEnabled(false);
    m_synthesize->setObjectName(QStringLiteral("synthesizeButton"));
    m_synthesize->setToolTip(tr("No profiles at hand? Estimate a Galvatron profile set from a model and a GPU "
                                "(stratex-cli profile synth) and search it"));
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

    auto* formScroll = new QScrollArea(this);
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    formScroll->setMinimumWidth(340);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_synthesize);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(formScroll, 1);
    leftLayout->addLayout(buttons);

    // One Export button with a menu: four buttons made the page too wide for a 1280 px window.
    auto* exportButton = new QToolButton(this);
    exportButton->setObjectName(QStringLiteral("exportPlanButton"));
    exportButton->setText(tr("Export"));
    exportButton->setToolTip(
        tr("Write the selected plan for Galvatron, PaddleNLP, Megatron-LM, PyTorch or torchtitan"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* exportMenu = new QMenu(exportButton);
    for (const exporting::ExportFormat format : exporting::exportFormats()) {
        const QString label = QString::fromUtf8(exporting::exportFormatTitle(format).data()) + QStringLiteral("…");
        const ExportKind exportKind = format;
        QAction* item = exportMenu->addAction(label);
        connect(item, &QAction::triggered, this, [this, exportKind] { exportWithDialog(exportKind); });
        auto* action = new QAction(tr("Selected Plan as %1").arg(label), this);
        connect(action, &QAction::triggered, this, [this, exportKind] { exportWithDialog(exportKind); });
        m_exportActions << action;
    }
    auto* savePlan = new QAction(tr("Selected Stratex Plan as Plan File…"), this);
    connect(savePlan, &QAction::triggered, m_stratexPanel, &StratexResultsPanel::savePlanWithDialog);
    m_exportActions << savePlan;
    exportMenu->addSeparator();
    QAction* modelItem = exportMenu->addAction(tr("Model and GPU for Exports…"));
    connect(modelItem, &QAction::triggered, m_exportModel, &QDialog::open);
    exportButton->setMenu(exportMenu);
    auto* planBar = new QHBoxLayout;
    planBar->addWidget(m_planSet, 1);
    planBar->addWidget(exportButton);
    planBar->addWidget(m_ranks);
    planBar->addWidget(m_timeline);

    auto* detail = new QWidget(this);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_strip);
    detailLayout->addWidget(m_memory, 1);

    auto* results = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_best);
    topLayout->addWidget(m_stats);
    topLayout->addLayout(planBar);
    topLayout->addWidget(m_table, 1);
    results->addWidget(top);
    results->addWidget(detail);
    results->setStretchFactor(0, 1);
    results->setStretchFactor(1, 1);

    m_resultsStack->setObjectName(QStringLiteral("searchResultsStack"));
    m_resultsStack->addWidget(results);
    m_resultsStack->addWidget(m_stratexPanel);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(m_resultsStack);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_run, &QPushButton::clicked, this, &SearchPage::runSearch);
    connect(m_cancel, &QPushButton::clicked, this, &SearchPage::cancelSearch);
    connect(m_synthesize, &QPushButton::clicked, this, &SearchPage::synthesizeWithDialog);
    connect(m_planSet, &QComboBox::currentIndexChanged, this, &SearchPage::showPlanSet);
    connect(m_timeline, &QPushButton::clicked, this, &SearchPage::showSelectedPlanTimeline);
    connect(m_ranks, &QPushButton::clicked, this, &SearchPage::showSelectedPlanRanks);
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            showEvaluation(nullptr);
            m_controller->selectPlan(m_planModel->plan(m_proxy->mapToSource(current).row()));
        });

    using controllers::SearchController;
    connect(m_controller->searchRunner(), &jobs::JobRunner::runningChanged, this, [this](bool running) {
        m_run->setEnabled(!running);
        m_cancel->setEnabled(running);
    });
    connect(m_controller, &SearchController::searchStarted, this, &SearchPage::profilesSearched);
    connect(m_controller, &SearchController::bestSoFar, this, &SearchPage::showBestSoFar);
    connect(m_controller, &SearchController::searchFinished, this,
        [this](std::shared_ptr<const controllers::SearchOutcome> outcome) { showOutcome(*outcome); });
    connect(m_controller, &SearchController::searchFailed, this, [this](const QString& message) {
        m_best->setText(tr("<b>Search failed</b>: %1").arg(message.toHtmlEscaped()));
        showSearchFailure(message);
    });
    connect(m_controller, &SearchController::searchCancelled, this,
        [this] { m_best->setText(m_best->text() + tr("<br><i>Cancelled.</i>")); });
    connect(m_controller, &SearchController::layerCostModelReady, this, &SearchPage::layerCostModelReady);
    connect(m_controller, &SearchController::evaluationReady, this,
        [this](const search::Evaluation& evaluation) { showEvaluation(&evaluation); });
    connect(m_controller, &SearchController::selectionCleared, this, [this] { showEvaluation(nullptr); });
    connect(m_controller, &SearchController::timelineReady, this,
        [this](const controllers::TimelineRequest& request) { Q_EMIT timelinesRequested({ request }); });
    connect(m_controller, &SearchController::bestPlanViewsReady, this, &SearchPage::bestPlanViewsReady);
    connect(m_controller, &SearchController::jobFailed, this, &Page::statusMessage);

    using controllers::StratexSearchController;
    connect(m_stratex->searchRunner(), &jobs::JobRunner::runningChanged, this, [this](bool running) {
        m_run->setEnabled(!running);
        m_cancel->setEnabled(running);
    });
    connect(m_stratex, &StratexSearchController::searchStarted, this, [this](const QString& source) {
        if (QFileInfo(source).isDir())
            Q_EMIT profilesSearched(source);
    });
    connect(m_stratex, &StratexSearchController::searchFailed, this, &SearchPage::showSearchFailure);
    connect(m_stratex, &StratexSearchController::bestPlanViewsReady, this, &SearchPage::bestPlanViewsReady);
    connect(m_stratex, &StratexSearchController::jobFailed, this, &Page::statusMessage);
    connect(m_stratexPanel, &StratexResultsPanel::timelinesRequested, this, &SearchPage::timelinesRequested);
    connect(m_stratexPanel, &StratexResultsPanel::rankLayoutRequested, this, &SearchPage::rankLayoutRequested);
    connect(m_stratexPanel, &StratexResultsPanel::statusMessage, this, &Page::statusMessage);
}

void SearchPage::showSearchFailure(const QString& message)
{
    Q_EMIT statusMessage(message);
    // A bad profile file is named with its key in the message: shown where it cannot be missed.
    // Asynchronous (open(), not exec()): the GUI never waits in a nested event loop.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Search"), message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("searchFailedBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

bool SearchPage::showsStratexResults() const
{
    return m_resultsStack->currentWidget() == m_stratexPanel;
}

controllers::StratexSearchInputs SearchPage::stratexInputs() const
{
    controllers::StratexSearchInputs inputs;
    inputs.profiles_dir = m_form->profilesDir().toStdString();
    inputs.settings = m_form->settings();
    inputs.given = m_form->given();
    inputs.stratex = m_form->stratexSettings();
    inputs.threads = m_form->threads();
    inputs.top = m_form->topK();
    return inputs;
}

SearchPage::~SearchPage() = default;

QIcon SearchPage::icon() const
{
    return QIcon(QStringLiteral(":/icons/search.svg"));
}

QList<jobs::JobRunner*> SearchPage::jobRunners() const
{
    return m_controller->runners() + m_stratex->runners();
}

QList<QAction*> SearchPage::exportActions() const
{
    return m_exportActions;
}

const SearchResult* SearchPage::result() const
{
    return m_controller->outcome() ? &m_controller->outcome()->result : nullptr;
}

const Plan* SearchPage::selectedPlan() const
{
    const Evaluation* evaluation = m_controller->selectedEvaluation();
    return evaluation ? &evaluation->plan : nullptr;
}

QString SearchPage::bestText() const
{
    return m_best->text();
}

QString SearchPage::statsText() const
{
    return m_stats->text();
}

void SearchPage::runSearch()
{
    openProfilesSearch(false);
}

void SearchPage::openProfilesSearch(bool showBestPlan)
{
    if (m_form->resolvedCostModel() == perf::CostModelChoice::Stratex) {
        m_resultsStack->setCurrentWidget(m_stratexPanel);
        m_stratex->run(stratexInputs(), showBestPlan);
        return;
    }
    m_resultsStack->setCurrentIndex(0);
    controllers::SearchRequest request;
    request.discovery = m_form->discovery();
    if (request.discovery.profilesDir.empty()) {
        m_best->setText(tr("Choose the folder of the model profiles first."));
        return;
    }
    request.settings = m_form->settings();
    request.given = m_form->given();
    request.threads = m_form->threads();
    request.top_k = m_form->topK();
    request.show_best_plan = showBestPlan;
    // Beyond the work budget the CLI refuses; here the user decides, before anything changes.
    if (const std::optional<WorkEstimate> estimate = controllers::SearchController::beyondWorkBudget(request)) {
        askToRunLongWork(this, tr("Search"), *estimate, [this, request]() mutable {
            request.settings.lift_work_budget = true;
            startSearch(std::move(request));
        });
        return;
    }
    startSearch(std::move(request));
}

void SearchPage::startSearch(controllers::SearchRequest request)
{
    m_best->setText(tr("Searching…"));
    m_stats->clear();
    m_controller->run(std::move(request));
}

void SearchPage::cancelSearch()
{
    m_controller->cancel();
    m_stratex->cancel();
}

void SearchPage::showBestSoFar(const Plan& plan)
{
    m_best->setText(tr("<b>Best so far</b>: %1<br>%2")
                        .arg(planHeadline(plan), QString::fromStdString(plan.layerSummary()).toHtmlEscaped()));
}

void SearchPage::showOutcome(const controllers::SearchOutcome& outcome)
{
    const SearchResult& result = outcome.result;
    if (result.best) {
        m_best->setText(
            tr("<b>Best plan</b>: %1<br>%2 · embedding %3")
                .arg(planHeadline(*result.best), QString::fromStdString(result.best->layerSummary()).toHtmlEscaped(),
                    embeddingSummary(*result.best)));
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

void SearchPage::showPlanSet()
{
    m_planModel->setPlans(
        m_controller->plans(m_planSet->currentIndex() == 0 ? controllers::PlanSet::Top : controllers::PlanSet::Pareto));
    m_table->sortByColumn(PlanTableModel::ThroughputColumn, Qt::DescendingOrder);
    if (m_proxy->rowCount() > 0)
        m_table->selectRow(0);
    else
        m_controller->selectPlan(nullptr);
}

void SearchPage::showEvaluation(const Evaluation* evaluation)
{
    m_strip->setEvaluation(evaluation ? std::optional<Evaluation>(*evaluation) : std::nullopt);
    m_memory->setEvaluation(evaluation);
    m_timeline->setEnabled(evaluation != nullptr);
    m_ranks->setEnabled(evaluation != nullptr);
}

void SearchPage::showSelectedPlanTimeline()
{
    m_controller->simulateSelectedPlan();
}

void SearchPage::showSelectedPlanRanks()
{
    if (const auto layout = m_controller->selectedRankLayout())
        Q_EMIT rankLayoutRequested(*layout);
}

bool SearchPage::canOpen(const QString& path) const
{
    const QFileInfo info(path);
    if (info.isFile())
        return search::isStrategyFile(path.toStdString()) || perf::isPlanFile(path.toStdString());
    return info.isDir()
        && !QDir(path).entryList({ QStringLiteral("computation_profiling_*.json") }, QDir::Files).isEmpty();
}

bool SearchPage::openFile(const QString& path, QString* error)
{
    if (QFileInfo(path).isFile())
        return openStrategy(path, error);
    openProfiles(path);
    return true;
}

bool SearchPage::openStrategy(const QString& path, QString* error)
{
    if (perf::isPlanFile(path.toStdString())) {
        if (!m_stratex->openPlan(path, stratexInputs(), error))
            return false;
        m_resultsStack->setCurrentWidget(m_stratexPanel);
        return true;
    }
    if (!m_controller->openStrategy(path, m_form->settings(), m_form->discovery(), error))
        return false;
    m_resultsStack->setCurrentIndex(0);
    m_best->setText(tr("Costing the strategy %1…").arg(QFileInfo(path).fileName().toHtmlEscaped()));
    m_stats->clear();
    return true;
}

void SearchPage::openProfiles(const QString& dir, bool showBestPlan)
{
    m_form->setProfilesDir(dir);
    m_form->setHardwareDir(QString());
    openProfilesSearch(showBestPlan);
}

void SearchPage::openExample()
{
    const BundledProfiles example = extractBundledProfiles();
    if (example.dir.isEmpty()) {
        Q_EMIT statusMessage(tr("Bundled example unavailable: %1").arg(example.error));
        return;
    }
    m_form->spinBox("memory-constraint")->setValue(example.memoryConstraintGb);
    m_form->spinBox("settle-bsz")->setValue(example.globalBatch);
    // The first view of the app stays Galvatron's search of the example (its profile also feeds
    // the Planner page); "auto" or "stratex" searches it with the stratex cost model.
    m_form->setCostModel(perf::CostModelChoice::Galvatron);
    openProfiles(example.dir, true);
}

void SearchPage::synthesizeWithDialog()
{
    SynthesizeDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted)
        openProfiles(dialog.folder());
}

QString SearchPage::defaultExportName(ExportKind kind) const
{
    return m_controller->defaultExportName(kind);
}

bool SearchPage::exportPlan(ExportKind kind, const QString& path, QString* error, QStringList* warnings) const
{
    exporting::ExportContext fallback;
    if (m_exportModel->confirmed() && m_controller->outcome()) {
        try {
            fallback = m_exportModel->context(m_controller->outcome()->settings);
        } catch (const Error& failure) {
            if (error)
                *error = QString::fromUtf8(failure.what());
            return false;
        }
    }
    const bool written = m_controller->exportSelectedPlan(kind, path, error, warnings, &fallback);
    if (!written && error && !m_exportModel->confirmed() && exporting::exportNeedsModel(kind))
        *error += tr(" Or give them in Export > Model and GPU for Exports….");
    return written;
}

bool SearchPage::exportNeedsModelDialog(ExportKind kind) const
{
    const auto outcome = m_controller->outcome();
    return outcome && exporting::exportNeedsModel(kind) && !outcome->description.model && !m_exportModel->confirmed();
}

void SearchPage::exportWithDialog(ExportKind kind)
{
    // Measured profiles: ask for the model and the GPU first, then export.
    if (exportNeedsModelDialog(kind)) {
        m_exportModel->setReason(tr("%1 needs the model's architecture, which measured profiles do not say. Choose "
                                    "a preset and change what differs; the searched shape stays the search's.")
                                     .arg(QString::fromUtf8(exporting::exportFormatTitle(kind).data())));
        connect(
            m_exportModel, &QDialog::accepted, this, [this, kind] { exportWithDialog(kind); },
            Qt::SingleShotConnection);
        m_exportModel->open();
        return;
    }
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

// The form is remembered through the settings table's JSON: the same keys as a settings file,
// checked the same way when read back (a damaged entry falls back to the defaults).
void SearchPage::saveSettings(QSettings& settings) const
{
    settings.beginGroup(QStringLiteral("search"));
    const auto outcome = m_controller->outcome();
    settings.setValue(QStringLiteral("profilesDir"), outcome ? outcome->profiles_dir : m_form->profilesDir());
    settings.setValue(QStringLiteral("hardwareDir"), m_form->hardwareDir());
    const std::string json = search::searchSettingTable().toJson(m_form->settings()).dump();
    settings.setValue(QStringLiteral("settings"), QString::fromStdString(json));
    QStringList open;
    const settings::SettingNames given = m_form->given();
    for (const auto& row : search::searchSettingTable().rows()) {
        if (!given.contains(row.spec.flag))
            open << QString::fromUtf8(row.spec.flag.data(), qsizetype(row.spec.flag.size()));
    }
    settings.setValue(QStringLiteral("openSettings"), open);
    settings.setValue(QStringLiteral("stratexSettings"),
        QString::fromStdString(perf::strategySearchSettingTable().toJson(m_form->stratexSettings()).dump()));
    settings.endGroup();
}

void SearchPage::restoreSettings(QSettings& settings)
{
    settings.beginGroup(QStringLiteral("search"));
    // The folder first: a synthesized set fills in its model and cluster, then the saved values
    // (what the user had when the window closed) win.
    m_form->setHardwareDir(settings.value(QStringLiteral("hardwareDir")).toString());
    m_form->setProfilesDir(settings.value(QStringLiteral("profilesDir")).toString());
    const QString json = settings.value(QStringLiteral("settings")).toString();
    if (!json.isEmpty()) {
        try {
            const JsonDocument document = JsonDocument::parse(json.toStdString(), "saved search settings");
            SearchSettings restored;
            search::searchSettingTable().applyJson(restored, document.root());
            settings::SettingNames open;
            for (const QString& flag : settings.value(QStringLiteral("openSettings")).toStringList())
                open.insert(flag.toStdString());
            m_form->setSettings(restored, open);
        } catch (const Error& error) {
            Q_EMIT statusMessage(tr("Saved search settings ignored: %1").arg(QString::fromUtf8(error.what())));
        }
    }
    const QString stratexJson = settings.value(QStringLiteral("stratexSettings")).toString();
    if (!stratexJson.isEmpty()) {
        try {
            const JsonDocument document = JsonDocument::parse(stratexJson.toStdString(), "saved stratex settings");
            perf::StrategySearchSettings restored;
            perf::strategySearchSettingTable().applyJson(restored, document.root());
            m_form->setStratexSettings(restored);
        } catch (const Error& error) {
            Q_EMIT statusMessage(tr("Saved stratex settings ignored: %1").arg(QString::fromUtf8(error.what())));
        }
    }
    settings.endGroup();
}

bool SearchPage::reopenLastProfiles()
{
    const QString dir = m_form->profilesDir();
    if (dir.isEmpty() || !canOpen(dir))
        return false;
    openProfilesSearch(true);
    return true;
}

} // namespace stratex::ui
