// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/search_page.h"

#include <utility>

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/export/export_set.h"
#include "core/megatron/plan_file.h"
#include "core/galvatron/search_setting_table.h"
#include "core/galvatron/search_work.h"
#include "core/galvatron/strategy_file.h"
#include "ui/common/bundled_examples.h"
#include "ui/common/long_work_question.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/search/synthesize_dialog.h"

#include "controllers/file_routing.h"
#include "controllers/plan_export.h"
#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::galvatron;

SearchPage::SearchPage(QWidget* parent)
    : Page(parent)
    , m_controller(new controllers::SearchController(this))
    , m_stratex(new controllers::StratexSearchController(this))
    , m_form(new SearchSettingsForm(this))
    , m_run(new QPushButton(tr("Run search"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_synthesize(new QPushButton(tr("Synthesize…"), this))
    , m_galvatronPanel(new GalvatronResultsPanel(m_controller, this))
    , m_stratexPanel(new StratexResultsPanel(m_stratex, this))
    , m_resultsStack(new QStackedWidget(this))
    , m_notice(new QLabel(this))
{
    m_notice->setObjectName(QStringLiteral("resultsNotice"));
    m_notice->setWordWrap(true);
    m_notice->setTextFormat(Qt::RichText);
    m_notice->setVisible(false);
    // Framed, in the theme's colours, above the results it speaks of.
    m_notice->setFrameShape(QFrame::StyledPanel);
    m_notice->setMargin(6);
    m_run->setObjectName(QStringLiteral("runSearchButton"));
    m_cancel->setObjectName(QStringLiteral("cancelSearchButton"));
    m_cancel->setEnabled(false);
    m_synthesize->setObjectName(QStringLiteral("synthesizeButton"));
    m_synthesize->setToolTip(tr("No profiles at hand? Estimate a Galvatron profile set from a model and a GPU "
                                "(stratex-cli profile synth) and search it"));

    auto* formScroll = new QScrollArea(this);
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    formScroll->setMinimumWidth(340);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_synthesize);
    auto* fromConfig = new QPushButton(tr("From config.json…"), this);
    fromConfig->setObjectName(QStringLiteral("hfConfigButton"));
    fromConfig->setToolTip(tr("Estimate a profile set for the model of a Hugging Face config.json and search it"));
    connect(fromConfig, &QPushButton::clicked, this, [this] { synthesizeFromConfig(); });
    buttons->addWidget(fromConfig);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(formScroll, 1);
    leftLayout->addLayout(buttons);

    m_resultsStack->setObjectName(QStringLiteral("searchResultsStack"));
    m_resultsStack->addWidget(m_galvatronPanel);
    m_resultsStack->addWidget(m_stratexPanel);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_notice);
    rightLayout->addWidget(m_resultsStack, 1);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_run, &QPushButton::clicked, this, &SearchPage::runSearch);
    connect(m_cancel, &QPushButton::clicked, this, &SearchPage::cancelSearch);
    connect(m_synthesize, &QPushButton::clicked, this, &SearchPage::synthesizeWithDialog);
    // Results are marked the moment the form stops matching them.
    connect(m_form, &SettingsForm::changed, this, &SearchPage::updateResultsNotice);
    // Run / Cancel follow whichever engine's search is running.
    for (jobs::JobRunner* runner : { m_controller->searchRunner(), m_stratex->searchRunner() }) {
        connect(runner, &jobs::JobRunner::runningChanged, this, [this](bool running) {
            m_run->setEnabled(!running);
            m_cancel->setEnabled(running);
        });
    }

    using controllers::SearchController;
    connect(m_controller, &SearchController::searchStarted, this, &SearchPage::profilesSearched);
    connect(m_controller, &SearchController::searchFailed, this, &SearchPage::showSearchFailure);
    connect(m_controller, &SearchController::layerCostModelReady, this, &SearchPage::layerCostModelReady);
    connect(m_controller, &SearchController::jobFailed, this, &Page::statusMessage);
    connect(m_galvatronPanel, &GalvatronResultsPanel::rankLayoutRequested, this, &SearchPage::rankLayoutRequested);
    connect(m_galvatronPanel, &GalvatronResultsPanel::statusMessage, this, &Page::statusMessage);

    using controllers::StratexSearchController;
    connect(m_stratex, &StratexSearchController::searchStarted, this, [this](const QString& source) {
        if (QFileInfo(source).isDir())
            Q_EMIT profilesSearched(source);
    });
    connect(m_stratex, &StratexSearchController::searchFailed, this, &SearchPage::showSearchFailure);
    connect(m_stratex, &StratexSearchController::jobFailed, this, &Page::statusMessage);
    connect(m_stratexPanel, &StratexResultsPanel::rankLayoutRequested, this, &SearchPage::rankLayoutRequested);
    connect(m_stratexPanel, &StratexResultsPanel::statusMessage, this, &Page::statusMessage);

    // File > Export: the selected plan of the engine shown, never the other's.
    for (const exporting::ExportFormat target : exporting::exportTargets()) {
        auto* action = new QAction(
            tr("Selected Plan as %1…").arg(QString::fromStdString(exporting::exportTargetTitle(target))), this);
        const std::string_view name = exporting::exportFormatName(target);
        action->setObjectName(QStringLiteral("exportAction-%1").arg(QString::fromUtf8(name.data(), qsizetype(name.size()))));
        connect(action, &QAction::triggered, this, [this, target] { exportSelectedPlanWithDialog(target); });
        m_exportActions.emplace_back(target, action);
    }
    connect(m_resultsStack, &QStackedWidget::currentChanged, this, &SearchPage::updateExportActions);
    connect(m_controller, &SearchController::evaluationReady, this, &SearchPage::updateExportActions);
    connect(m_controller, &SearchController::selectionCleared, this, &SearchPage::updateExportActions);
    connect(m_stratexPanel, &StratexResultsPanel::selectionChanged, this, &SearchPage::updateExportActions);
    updateExportActions();
}

QAction* SearchPage::exportAction(exporting::ExportFormat target) const
{
    for (const auto& [format, action] : m_exportActions) {
        if (format == target)
            return action;
    }
    return nullptr;
}

void SearchPage::updateExportActions()
{
    const bool stratex = showsStratexResults();
    const bool selected = stratex ? m_stratexPanel->selectedPlan() != nullptr
                                  : m_controller->selectedEvaluation() != nullptr;
    const QString why = selected ? QString()
        : stratex                ? tr("Select a plan of the stratex results first")
                                 : tr("Select a plan of the Galvatron results first");
    for (const auto& [format, action] : m_exportActions) {
        action->setEnabled(selected);
        action->setToolTip(why);
    }
    m_stratexPanel->savePlanAction()->setEnabled(stratex && selected);
}

void SearchPage::showExportMessage(const QString& objectName, const QString& title, const QString& text)
{
    // Asynchronous (open(), not exec()), as the search's failures: the GUI never waits in a nested
    // event loop.
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setObjectName(objectName);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SearchPage::exportSelectedPlanWithDialog(exporting::ExportFormat target)
{
    const bool stratex = showsStratexResults();
    if (!stratex && m_galvatronPanel->askForModelThen(target, [this, target] { exportSelectedPlanWithDialog(target); }))
        return;
    const QString targetTitle = QString::fromStdString(exporting::exportTargetTitle(target));
    QString error;
    const std::optional<controllers::PlanExport> planExport
        = stratex ? m_stratexPanel->planExport(target, &error) : m_galvatronPanel->planExport(target, &error);
    if (!planExport) {
        Q_EMIT statusMessage(tr("Not exported: %1").arg(error));
        showExportMessage(QStringLiteral("exportFailedBox"), tr("Export %1").arg(targetTitle), error);
        return;
    }
    const bool set = planExport->files.size() > 1;
    const QString caption = set ? tr("Folder for the %1 of %2").arg(targetTitle, planExport->identity)
                                : tr("Export %1 of %2").arg(targetTitle, planExport->identity);
    const QString suggested = controllers::defaultPlanExportName(*planExport,
        stratex ? QString::fromStdString(exporting::defaultExportFileName(target, {}))
                : m_galvatronPanel->defaultExportName(target));
    // Every approximation and refusal of the export (exporting::ExportNote) is shown before the
    // file is written, while its place is chosen (issue 25).
    if (!planExport->warnings.isEmpty())
        showExportMessage(QStringLiteral("exportWarningsBox"), tr("Export %1").arg(targetTitle),
            tr("The %1 of %2 is not exactly the plan:\n\n%3")
                .arg(targetTitle, planExport->identity, planExport->warnings.join(QStringLiteral("\n\n"))));
    QString path;
    if (m_exportPathChooser)
        path = m_exportPathChooser(caption, suggested, set);
    else if (set)
        path = QFileDialog::getExistingDirectory(this, caption);
    else
        path = QFileDialog::getSaveFileName(this, caption, suggested);
    if (path.isEmpty())
        return;
    if (!controllers::writePlanExport(*planExport, path, &error)) {
        Q_EMIT statusMessage(tr("Not exported: %1").arg(error));
        showExportMessage(QStringLiteral("exportFailedBox"), tr("Export %1").arg(targetTitle), error);
        return;
    }
    const QString written = controllers::planExportWrittenMessage(*planExport, path);
    Q_EMIT statusMessage(written);
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
    QList<QAction*> actions;
    for (const auto& entry : m_exportActions)
        actions << entry.second;
    return actions << m_stratexPanel->savePlanAction();
}

void SearchPage::runSearch()
{
    openProfilesSearch(false);
}

std::optional<controllers::SearchRequest> SearchPage::galvatronRequest(bool showBestPlan)
{
    controllers::SearchRequest request;
    request.discovery = m_form->discovery();
    if (request.discovery.profilesDir.empty())
        return std::nullopt;
    request.settings = m_form->settings();
    request.given = m_form->given();
    request.threads = m_form->threads();
    request.top_k = m_form->topK();
    request.show_best_plan = showBestPlan;
    return request;
}

void SearchPage::openProfilesSearch(bool showBestPlan)
{
    if (m_form->resolvedCostModel() == megatron::CostModelChoice::Stratex) {
        auto start = [this, showBestPlan](controllers::StratexSearchInputs inputs) {
            m_resultsStack->setCurrentWidget(m_stratexPanel);
            resultsStarted();
            m_stratex->run(std::move(inputs), showBestPlan);
        };
        // Beyond the work budget the CLI refuses; here the user decides, as for Galvatron's.
        controllers::StratexSearchInputs inputs = stratexInputs();
        if (const std::optional<WorkEstimate> estimate
            = controllers::StratexSearchController::beyondWorkBudget(inputs)) {
            askToRunLongWork(this, tr("Search"), *estimate, [start, inputs]() mutable {
                inputs.lift_work_budget = true;
                start(std::move(inputs));
            });
            return;
        }
        start(inputs);
        return;
    }
    m_resultsStack->setCurrentWidget(m_galvatronPanel);
    std::optional<controllers::SearchRequest> request = galvatronRequest(showBestPlan);
    if (!request) {
        m_galvatronPanel->setMessage(tr("Choose the folder of the model profiles first."));
        return;
    }
    // Beyond the work budget the CLI refuses; here the user decides, before anything changes.
    if (const std::optional<WorkEstimate> estimate = controllers::SearchController::beyondWorkBudget(*request)) {
        askToRunLongWork(this, tr("Search"), *estimate, [this, request = *request]() mutable {
            request.settings.lift_work_budget = true;
            startSearch(std::move(request));
        });
        return;
    }
    startSearch(std::move(*request));
}

void SearchPage::startSearch(controllers::SearchRequest request)
{
    m_resultsStack->setCurrentWidget(m_galvatronPanel);
    resultsStarted();
    m_galvatronPanel->showSearching();
    m_controller->run(std::move(request));
}

SearchPage::FormState SearchPage::formState() const
{
    FormState state;
    state.settings = m_form->settings();
    const settings::SettingNames given = m_form->given();
    for (const auto& row : galvatron::searchSettingTable().rows()) {
        if (!given.contains(row.spec.flag))
            state.open.insert(std::string(row.spec.flag));
    }
    state.profilesDir = m_form->profilesDir();
    state.hardwareDir = m_form->hardwareDir();
    state.stratex = m_form->stratexSettings();
    return state;
}

void SearchPage::setFormState(const FormState& state)
{
    // As restoreSettings: the folders first (a synthesized set fills in its model and cluster),
    // then the values, which win.
    m_form->setHardwareDir(state.hardwareDir);
    m_form->setProfilesDir(state.profilesDir);
    m_form->setSettings(state.settings, state.open);
    m_form->setStratexSettings(state.stratex);
}

QString SearchPage::inputsKey() const
{
    const FormState state = formState();
    QStringList open;
    for (const std::string& flag : state.open)
        open << QString::fromStdString(flag);
    open.sort();
    return QStringList { state.profilesDir, state.hardwareDir,
        QString::fromStdString(galvatron::searchSettingTable().toJson(state.settings).dump()), open.join(u','),
        QString::fromStdString(megatron::strategySearchSettingTable().toJson(state.stratex).dump()),
        QString::number(m_form->topK()) }
        .join(u'\n');
}

void SearchPage::resultsStarted()
{
    m_resultsKey = inputsKey();
    m_startNotice.clear();
    updateResultsNotice();
}

QString SearchPage::resultsNotice() const
{
    return m_notice->isHidden() ? QString() : m_notice->text();
}

void SearchPage::updateResultsNotice()
{
    QString text;
    if (!m_resultsKey.isEmpty()) {
        const bool stratexShown = showsStratexResults();
        const bool stratexChosen = m_form->resolvedCostModel() == megatron::CostModelChoice::Stratex;
        if (!m_startNotice.isEmpty())
            text = m_startNotice;
        else if (stratexShown != stratexChosen)
            text = stratexShown
                ? tr("<b>Stale:</b> these are the <b>stratex</b> cost model's results; the form now chooses "
                     "<b>Galvatron</b>'s. Run search for its results.")
                : tr("<b>Stale:</b> these are the <b>Galvatron</b> cost model's results; the form now chooses "
                     "the <b>stratex</b> cost model. Run search for its results.");
        else if (inputsKey() != m_resultsKey)
            text = tr("<b>Stale:</b> the form has changed since these results were computed; they are for "
                      "the previous settings. Run search to update them.");
    }
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

void SearchPage::cancelSearch()
{
    m_controller->cancel();
    m_stratex->cancel();
}

bool SearchPage::canOpen(const QString& path) const
{
    return controllers::searchPageOpens(path);
}

bool SearchPage::openFile(const QString& path, QString* error)
{
    if (QFileInfo(path).isFile()) {
        if (!openStrategy(path, error))
            return false;
    } else {
        openProfiles(path);
    }
    Q_EMIT fileOpened(path);
    return true;
}

bool SearchPage::openStrategy(const QString& path, QString* error)
{
    // The form follows the cost model of what was opened, or the results would show as stale at
    // once and Run search would answer with the other model. Only the cost-model choice changes.
    if (megatron::isPlanFile(path.toStdString())) {
        if (!m_stratex->openPlan(path, stratexInputs(), error))
            return false;
        if (m_form->resolvedCostModel() != megatron::CostModelChoice::Stratex)
            m_form->setCostModel(megatron::CostModelChoice::Stratex);
        m_resultsStack->setCurrentWidget(m_stratexPanel);
        resultsStarted();
        return true;
    }
    if (!m_controller->openStrategy(path, m_form->settings(), m_form->discovery(), error))
        return false;
    if (m_form->resolvedCostModel() != megatron::CostModelChoice::Galvatron)
        m_form->setCostModel(megatron::CostModelChoice::Galvatron);
    m_resultsStack->setCurrentWidget(m_galvatronPanel);
    resultsStarted();
    m_galvatronPanel->showCostingStrategy(path);
    return true;
}

void SearchPage::openProfiles(const QString& dir, bool showBestPlan)
{
    m_form->setProfilesDir(dir);
    m_form->setHardwareDir(QString());
    openProfilesSearch(showBestPlan);
}

QString SearchPage::openExample()
{
    const BundledProfiles example = extractBundledProfiles();
    if (example.dir.isEmpty()) {
        Q_EMIT statusMessage(tr("Bundled example unavailable: %1").arg(example.error));
        return {};
    }
    // The example's settings, not what the form held (another model's name would not find the
    // example's profiles): every field open, the set fills in its model and cluster.
    settings::SettingNames open;
    for (const auto& row : galvatron::searchSettingTable().rows())
        open.insert(std::string(row.spec.flag));
    m_form->setSettings(galvatron::SearchSettings {}, open);
    m_form->spinBox("memory-constraint")->setValue(example.memoryConstraintGb);
    m_form->spinBox("settle-bsz")->setValue(example.globalBatch);
    // The first view of the app stays Galvatron's search of the example (its profile also feeds
    // the Planner page); "auto" or "stratex" searches it with the stratex cost model.
    m_form->setCostModel(megatron::CostModelChoice::Galvatron);
    openProfiles(example.dir, true);
    return example.description;
}

void SearchPage::synthesizeWithDialog()
{
    SynthesizeDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted)
        openProfiles(dialog.folder());
}

void SearchPage::synthesizeFromConfig(const QString& path)
{
    const QString file = path.isEmpty() ? QFileDialog::getOpenFileName(this, tr("Hugging Face config.json"), QString(),
                                              tr("Model configs (*.json);;All Files (*)"))
                                        : path;
    if (file.isEmpty())
        return;
    SynthesizeDialog dialog(this);
    QString error;
    if (!dialog.loadHfConfig(file, &error)) {
        QMessageBox::warning(this, tr("From config.json"), error);
        return;
    }
    if (dialog.exec() == QDialog::Accepted)
        openProfiles(dialog.folder());
}

// The form is remembered through the settings table's JSON: the same keys as a settings file,
// checked the same way when read back (a damaged entry falls back to the defaults).
void SearchPage::saveSettings(QSettings& settings) const
{
    settings.beginGroup(QStringLiteral("search"));
    const auto outcome = m_controller->outcome();
    // The start showed the example but kept the last session's form: that form is what to keep.
    settings.setValue(QStringLiteral("profilesDir"),
        outcome && m_startNotice.isEmpty() ? outcome->profiles_dir : m_form->profilesDir());
    settings.setValue(QStringLiteral("hardwareDir"), m_form->hardwareDir());
    const std::string json = galvatron::searchSettingTable().toJson(m_form->settings()).dump();
    settings.setValue(QStringLiteral("settings"), QString::fromStdString(json));
    QStringList open;
    const settings::SettingNames given = m_form->given();
    for (const auto& row : galvatron::searchSettingTable().rows()) {
        if (!given.contains(row.spec.flag))
            open << QString::fromUtf8(row.spec.flag.data(), qsizetype(row.spec.flag.size()));
    }
    settings.setValue(QStringLiteral("openSettings"), open);
    settings.setValue(QStringLiteral("stratexSettings"),
        QString::fromStdString(megatron::strategySearchSettingTable().toJson(m_form->stratexSettings()).dump()));
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
            galvatron::searchSettingTable().applyJson(restored, document.root());
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
            megatron::StrategySearchSettings restored;
            megatron::strategySearchSettingTable().applyJson(restored, document.root());
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
    if (m_form->resolvedCostModel() != megatron::CostModelChoice::Stratex) {
        if (const std::optional<controllers::SearchRequest> request = galvatronRequest(true)) {
            if (const std::optional<WorkEstimate> estimate = controllers::SearchController::beyondWorkBudget(*request)) {
                // No question at start: the example's results, and the user's form kept for them
                // to run (or change) when they choose.
                const FormState restored = formState();
                const QString example = openExample();
                setFormState(restored);
                m_startNotice = tr("Showing the bundled example (%1). Your last session's search was not run "
                                   "at start: %2 The form keeps its settings: Run search to run it.")
                                    .arg(example.toHtmlEscaped(),
                                        QString::fromStdString(estimate->describe()).toHtmlEscaped());
                updateResultsNotice();
                return true;
            }
        }
    }
    openProfilesSearch(true);
    return true;
}

} // namespace stratex::ui
