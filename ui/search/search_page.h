// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "core/ranks/parallel_config.h"
#include "ui/page.h"

#include "controllers/search_controller.h"
#include "controllers/stratex_search_controller.h"
#include "controllers/timeline_request.h"

class QAction;
class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace stratex::ui {

class ExportModelDialog;
class LayerStrategyStrip;
class PlanTableModel;
class SearchSettingsForm;
class StageMemoryChart;
class StratexResultsPanel;

// The Search page: a view over SearchController. The settings form (generated from the settings
// table), Run / Cancel with progress, the best plan as soon as a task finds it, the top plans or
// the Pareto set in a sortable table, and the selected plan's per-layer strategy, memory per
// stage, exports (Galvatron, PaddleNLP, Megatron-LM), rank grid and simulated timeline. With the
// stratex cost model (the form's choice, "auto" resolved as the CLI does) the search runs on
// StratexSearchController and its results show on a StratexResultsPanel instead.
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
    // file (perf::isPlanFile): costed at once.
    bool canOpen(const QString& path) const override;
    bool openFile(const QString& path, QString* error) override;

    // Costs a Galvatron or Stratex strategy file as a one-plan result (SearchController::
    // openStrategy, with this form's settings and profiles where the file says nothing), or a
    // stratex plan file with the stratex cost model (StratexSearchController::openPlan). False with
    // `error` naming file and key when it is not a valid strategy or nothing can cost it.
    bool openStrategy(const QString& path, QString* error);

    // Searches the profiles in `dir`. With `showBestPlan`, the best plan's rank layout and pipeline
    // timeline follow as bestPlanViewsReady once they are known.
    void openProfiles(const QString& dir, bool showBestPlan = false);
    // The bundled example (an estimated llama2-13b on 2 x 8 A100-40GB), searched, with its views.
    void openExample();
    // The folder of the last session (restoreSettings), searched with its views; false when there
    // is none or it is no longer a folder of profiles.
    bool reopenLastProfiles();

    controllers::SearchController* controller() const { return m_controller; }
    controllers::StratexSearchController* stratexController() const { return m_stratex; }
    StratexResultsPanel* stratexPanel() const { return m_stratexPanel; }
    // Whether the results shown are the stratex cost model's.
    bool showsStratexResults() const;
    SearchSettingsForm* form() const { return m_form; }
    PlanTableModel* planModel() const { return m_planModel; }
    QTableView* planTable() const { return m_table; }
    QComboBox* planSetBox() const { return m_planSet; }
    LayerStrategyStrip* layerStrip() const { return m_strip; }
    StageMemoryChart* memoryChart() const { return m_memory; }
    QString bestText() const;
    QString statsText() const;
    const search::SearchResult* result() const;
    const search::Plan* selectedPlan() const;

    using ExportKind = exporting::ExportFormat;
    // Writes the selected plan; false with `error` when there is none or the file cannot be written.
    // `warnings` receives what the export says the user must know (e.g. the Megatron version does
    // not fit the memory budget).
    bool exportPlan(ExportKind kind, const QString& path, QString* error, QStringList* warnings = nullptr) const;
    QString defaultExportName(ExportKind kind) const;
    // The model and GPU the exports use when the profiles say neither (measured profiles).
    ExportModelDialog* exportModelDialog() const { return m_exportModel; }

public Q_SLOTS:
    void runSearch();
    void cancelSearch();
    void showSelectedPlanTimeline();
    void showSelectedPlanRanks();
    // Asks for a model and a cluster, writes an estimated profile set and searches it.
    void synthesizeWithDialog();

Q_SIGNALS:
    void timelinesRequested(const stratex::controllers::TimelineRequests& requests);
    // After every search: its Galvatron profile as a layer cost model, for the planner.
    void layerCostModelReady(std::shared_ptr<const stratex::planner::LayerCostModel> model, const QString& description);
    void rankLayoutRequested(const stratex::ranks::ParallelConfig& config);
    // A search started on the profiles in `dir`.
    void profilesSearched(const QString& dir);
    // After openProfiles(dir, true): the best plan's rank layout and simulated timeline.
    void bestPlanViewsReady(
        const stratex::ranks::ParallelConfig& config, const stratex::controllers::TimelineRequest& timeline);

private:
    void openProfilesSearch(bool showBestPlan);
    void startSearch(controllers::SearchRequest request);
    controllers::StratexSearchInputs stratexInputs() const;
    void showSearchFailure(const QString& message);
    void showBestSoFar(const search::Plan& plan);
    void showOutcome(const controllers::SearchOutcome& outcome);
    void showPlanSet();
    void showEvaluation(const search::Evaluation* evaluation);
    void exportWithDialog(ExportKind kind);
    bool exportNeedsModelDialog(ExportKind kind) const;

    controllers::SearchController* m_controller;
    SearchSettingsForm* m_form;
    ExportModelDialog* m_exportModel;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_synthesize;
    QLabel* m_best;
    QLabel* m_stats;
    QComboBox* m_planSet;
    PlanTableModel* m_planModel;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    LayerStrategyStrip* m_strip;
    StageMemoryChart* m_memory;
    QPushButton* m_timeline;
    QPushButton* m_ranks;
    QList<QAction*> m_exportActions;
    controllers::StratexSearchController* m_stratex;
    StratexResultsPanel* m_stratexPanel;
    QStackedWidget* m_resultsStack; // Galvatron's results, or the stratex panel
};

} // namespace stratex::ui
