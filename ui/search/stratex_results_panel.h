// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>

#include <QList>
#include <QWidget>

#include "core/ranks/parallel_config.h"

#include "controllers/stratex_search_controller.h"

class QAction;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace stratex::ui {

class StratexLayerStrip;
class StratexMemoryChart;
class StratexPeakChart;
class StratexPlanTableModel;

// The Search page's results with the stratex cost model: the best plan's headline and the search's
// counts, the top plans in a sortable table, and the selected plan's stages and layers, memory per
// stage against the limit, plan file, rank grid and simulated pipeline (the controller hands the
// timeline to the Timeline page itself). A view over StratexSearchController, as
// GalvatronResultsPanel is over SearchController.
class StratexResultsPanel : public QWidget {
    Q_OBJECT
public:
    explicit StratexResultsPanel(controllers::StratexSearchController* controller, QWidget* parent = nullptr);

    StratexPlanTableModel* planModel() const { return m_model; }
    QTableView* planTable() const { return m_table; }
    StratexLayerStrip* layerStrip() const { return m_strip; }
    StratexMemoryChart* memoryChart() const { return m_memory; }
    StratexPeakChart* peakChart() const { return m_peak; }
    // "Selected Stratex Plan as Plan File…" for the window's Export menu (enabled by the page).
    QAction* savePlanAction() const { return m_savePlanAction; }
    // The selected plan for an export target (exporting::exportTargets), through the plan file
    // Save Plan writes; nullopt with `error` when none is selected or the target refuses it.
    std::optional<controllers::PlanExport> planExport(exporting::ExportFormat target, QString* error) const;
    QString bestText() const;
    QString statsText() const;
    void setMessage(const QString& html);
    // The selected plan, or nullptr.
    const megatron::Estimate* selectedPlan() const;

    // Writes the selected plan as a stratex plan file; false with `error` when there is none or
    // the file cannot be written.
    bool savePlan(const QString& path, QString* error) const;
    QString defaultPlanFileName() const;

public Q_SLOTS:
    void savePlanWithDialog();
    void showSelectedPlanTimeline();
    void showSelectedPlanRanks();

Q_SIGNALS:
    void rankLayoutRequested(const stratex::ranks::ParallelConfig& config);
    void statusMessage(const QString& message);
    // Another plan, or none, is selected.
    void selectionChanged();

private:
    void showOutcome(const controllers::StratexSearchOutcome& outcome);
    void showPlan(const megatron::Estimate* plan);
    std::optional<megatron::PeakExplanation> planPeak(const megatron::Estimate& plan) const;

    controllers::StratexSearchController* m_controller;
    QLabel* m_best;
    QLabel* m_stats;
    StratexPlanTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    StratexLayerStrip* m_strip;
    StratexMemoryChart* m_memory;
    StratexPeakChart* m_peak;
    QPushButton* m_save;
    QPushButton* m_ranks;
    QPushButton* m_timeline;
    QAction* m_savePlanAction;
};

} // namespace stratex::ui
