// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <optional>

#include <QList>
#include <QWidget>

#include "core/export/plan_export.h"
#include "core/ranks/parallel_config.h"
#include "core/galvatron/evaluate.h"
#include "core/galvatron/search_result.h"

#include "controllers/search_controller.h"

class QAction;
class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace stratex::ui {

class ExportModelDialog;
class LayerStrategyStrip;
class PlanTableModel;
class StageMemoryChart;

// The Search page's results with Galvatron's cost model: the best plan as soon as a task finds
// it, the search's counts, the top plans or the Pareto set in a sortable table, and the selected
// plan's per-layer strategy, memory per stage, exports (Galvatron, PaddleNLP, Megatron-LM,
// PyTorch, torchtitan), rank grid and simulated pipeline. A view over SearchController, as
// StratexResultsPanel is over StratexSearchController.
class GalvatronResultsPanel : public QWidget {
    Q_OBJECT
public:
    using ExportKind = exporting::ExportFormat;

    explicit GalvatronResultsPanel(controllers::SearchController* controller, QWidget* parent = nullptr);
    ~GalvatronResultsPanel() override;

    PlanTableModel* planModel() const { return m_planModel; }
    QTableView* planTable() const { return m_table; }
    QComboBox* planSetBox() const { return m_planSet; }
    LayerStrategyStrip* layerStrip() const { return m_strip; }
    StageMemoryChart* memoryChart() const { return m_memory; }
    // The model and GPU the exports use when the profiles say neither (measured profiles).
    ExportModelDialog* exportModelDialog() const { return m_exportModel; }
    // The selected plan for an export target (exporting::exportTargets), with the model and GPU
    // of Model and GPU for Exports where the profiles say neither; nullopt with `error`.
    std::optional<controllers::PlanExport> planExport(ExportKind target, QString* error) const;
    // Measured profiles and a target that needs the model: opens Model and GPU for Exports and
    // calls `then` once accepted; false (and nothing opened) when the export can go ahead.
    bool askForModelThen(ExportKind target, const std::function<void()>& then);
    QString bestText() const;
    QString statsText() const;
    void setMessage(const QString& html);
    // "Searching…" / "Costing the strategy <file>…": the headline while the controller works.
    void showSearching();
    void showCostingStrategy(const QString& path);
    // Empties the plan table and the selection (a new search or strategy has started).
    void clearPlans();
    const galvatron::SearchResult* result() const;
    const galvatron::Plan* selectedPlan() const;

    // Writes the selected plan; false with `error` when there is none or the file cannot be written.
    // `warnings` receives what the export says the user must know (e.g. the Megatron version does
    // not fit the memory budget).
    bool exportPlan(ExportKind kind, const QString& path, QString* error, QStringList* warnings = nullptr) const;
    QString defaultExportName(ExportKind kind) const;

public Q_SLOTS:
    void showSelectedPlanTimeline();
    void showSelectedPlanRanks();
    void exportWithDialog(stratex::exporting::ExportFormat kind);

Q_SIGNALS:
    void rankLayoutRequested(const stratex::ranks::ParallelConfig& config);
    void statusMessage(const QString& message);

private:
    // The model and GPU of Model and GPU for Exports once confirmed (for measured profiles, which
    // say neither), else an empty context; nullopt with `error` when the dialog's values do not make one.
    std::optional<exporting::ExportContext> exportFallback(QString* error) const;
    void showBestSoFar(const galvatron::Plan& plan, int reserveMb);
    void showOutcome(const controllers::SearchOutcome& outcome);
    void showPlanSet();
    void showEvaluation(const galvatron::Evaluation* evaluation);
    bool exportNeedsModelDialog(ExportKind kind) const;

    controllers::SearchController* m_controller;
    ExportModelDialog* m_exportModel;
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
};

} // namespace stratex::ui
