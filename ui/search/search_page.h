// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/export/plan_export.h"
#include "core/galvatron/search_settings.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/ranks/parallel_config.h"
#include "core/settings/setting.h"
#include "ui/page.h"

#include "controllers/search_controller.h"
#include "controllers/stratex_search_controller.h"

class QAction;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace stratex::ui {

class GalvatronResultsPanel;
class SearchSettingsForm;
class StratexResultsPanel;

// The Search page: the settings form (generated from the settings table), Run / Cancel with
// progress, and the results of the engine the form's cost model chooses ("auto" resolved as the
// CLI does), each on its own panel over its own controller: Galvatron's on a
// GalvatronResultsPanel (SearchController), the stratex cost model's (Megatron's strategy space)
// on a StratexResultsPanel (StratexSearchController). The controllers hand their timelines to
// the Timeline page's sources directly (the main window connects them).
class SearchPage : public Page {
    Q_OBJECT
public:
    explicit SearchPage(QWidget* parent = nullptr);
    ~SearchPage() override;

    QString pageId() const override { return QStringLiteral("search"); }
    QString title() const override { return tr("Search"); }
    QIcon icon() const override;
    QList<jobs::JobRunner*> jobRunners() const override;
    QList<QAction*> exportActions() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;
    // A folder of Galvatron profiles (or one made by `stratex-cli profile synth`): searched at once.
    // A strategy file (a JSON object with Galvatron's pp_deg and tp_sizes_enc) or a stratex plan
    // file (megatron::isPlanFile): costed at once.
    bool canOpen(const QString& path) const override;
    bool openFile(const QString& path, QString* error) override;

    // Costs a Galvatron or Stratex strategy file as a one-plan result (SearchController::
    // openStrategy, with this form's settings and profiles where the file says nothing), or a
    // stratex plan file with the stratex cost model (StratexSearchController::openPlan). False with
    // `error` naming file and key when it is not a valid strategy or nothing can cost it.
    bool openStrategy(const QString& path, QString* error);

    // Searches the profiles in `dir`. With `showBestPlan`, the best plan's rank layout and pipeline
    // timeline follow as the engine controller's bestPlanViewsReady once they are known.
    void openProfiles(const QString& dir, bool showBestPlan = false);
    // The bundled example (an estimated llama2-13b on 2 x 8 A100-40GB), searched, with its views;
    // returns what it is ("llama2-13b on 2 × 8 A100-40GB"), empty when unavailable.
    QString openExample();
    // The folder of the last session (restoreSettings), searched with its views; false when there
    // is none or it is no longer a folder of profiles. A search beyond the work budget is never
    // run at start (no question either): the example is shown instead, the form keeps the last
    // session's settings and the results notice says why.
    bool reopenLastProfiles();
    // The line above the results: empty, or why the results shown are not those of the form (the
    // form changed since, the cost model chose the other engine, the start showed the example).
    QString resultsNotice() const;

    controllers::SearchController* controller() const { return m_controller; }
    controllers::StratexSearchController* stratexController() const { return m_stratex; }
    GalvatronResultsPanel* galvatronPanel() const { return m_galvatronPanel; }
    StratexResultsPanel* stratexPanel() const { return m_stratexPanel; }
    // Whether the results shown are the stratex cost model's.
    bool showsStratexResults() const;
    SearchSettingsForm* form() const { return m_form; }

    // File > Export: one action per target (exporting::exportTargets, the CLI's --to, the
    // PaddleNLP pair as one set) for the selected plan of the engine whose results are shown,
    // disabled while none of its plans is selected; then the stratex panel's Save Plan.
    QAction* exportAction(exporting::ExportFormat target) const;
    // Where an export goes: asks with a save dialog (a folder dialog for a set) unless a chooser is
    // set (the tests'); an empty path cancels.
    using ExportPathChooser = std::function<QString(const QString& caption, const QString& suggested, bool folder)>;
    void setExportPathChooser(ExportPathChooser chooser) { m_exportPathChooser = std::move(chooser); }

public Q_SLOTS:
    void runSearch();
    void cancelSearch();
    // Asks for a model and a cluster, writes an estimated profile set and searches it.
    void synthesizeWithDialog();
    // "From config.json…": the Synthesize dialog with the model of a Hugging Face config.json
    // (asked for when `path` is empty); its set is opened as Synthesize… opens it.
    void synthesizeFromConfig(const QString& path = QString());
    // The selected plan of the shown engine for `target`: asks where, writes it (a set into one
    // folder, all files or none) and says so, with the export's warnings.
    void exportSelectedPlanWithDialog(stratex::exporting::ExportFormat target);

Q_SIGNALS:
    // After every search: its Galvatron profile as a layer cost model, for the planner.
    void layerCostModelReady(std::shared_ptr<const stratex::planner::LayerCostModel> model, const QString& description);
    // "Show rank grid" on either panel.
    void rankLayoutRequested(const stratex::ranks::ParallelConfig& config);
    // A search started on the profiles in `dir`.
    void profilesSearched(const QString& dir);

private:
    // The form as a search reads it (settings, open fields, folders, the stratex table).
    struct FormState {
        galvatron::SearchSettings settings;
        settings::SettingNames open;
        QString profilesDir;
        QString hardwareDir;
        megatron::StrategySearchSettings stratex;
    };
    FormState formState() const;
    void setFormState(const FormState& state);
    // The inputs of the results shown, to tell when the form no longer matches them.
    QString inputsKey() const;
    void resultsStarted();
    void updateResultsNotice();
    std::optional<controllers::SearchRequest> galvatronRequest(bool showBestPlan);
    void openProfilesSearch(bool showBestPlan);
    void startSearch(controllers::SearchRequest request);
    controllers::StratexSearchInputs stratexInputs() const;
    void showSearchFailure(const QString& message);
    void updateExportActions();
    void showExportMessage(const QString& objectName, const QString& title, const QString& text);

    controllers::SearchController* m_controller;
    controllers::StratexSearchController* m_stratex;
    SearchSettingsForm* m_form;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_synthesize;
    GalvatronResultsPanel* m_galvatronPanel;
    StratexResultsPanel* m_stratexPanel;
    QStackedWidget* m_resultsStack; // the panel of the engine last run
    QLabel* m_notice; // "resultsNotice": why the results shown are not the form's
    QString m_resultsKey; // inputsKey() of the results shown; empty before any
    QString m_startNotice; // set when the start showed the example instead of the last search
    std::vector<std::pair<exporting::ExportFormat, QAction*>> m_exportActions;
    ExportPathChooser m_exportPathChooser;
};

} // namespace stratex::ui
