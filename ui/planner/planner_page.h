// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include "core/planner/layer_cost_model.h"
#include "core/planner/mode_pair.h"
#include "core/planner/planner_compare.h"
#include "ui/page.h"

#include "controllers/timeline_request.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QTableWidget;
class QTabWidget;

namespace stratex::controllers {
class PlannerController;
}

namespace stratex::ui {

class ModeCompareChart;
class PlanCompareModel;
class PlannerForm;

// The Planner page: DynaPipe-style planning of variable-length global batches. "Plan" plans the
// whole batch in normal and in fast mode and shows both (micro-batches, recompute, makespan,
// planning time), ready to open in the Timeline page; "Compare modes" runs plan-compare over
// growing batches and charts planning time and makespan, so fast mode's quality is measured.
// A view over controllers::PlannerController: the form writes its inputs, the results come back
// as its signals.
class PlannerPage : public Page {
    Q_OBJECT
public:
    explicit PlannerPage(QWidget* parent = nullptr);
    ~PlannerPage() override;

    QString pageId() const override { return QStringLiteral("planner"); }
    QString title() const override { return tr("Planner"); }
    QIcon icon() const override;
    QList<jobs::JobRunner*> jobRunners() const override;
    QList<QAction*> exportActions() const override;

    controllers::PlannerController* controller() const { return m_controller; }
    PlannerForm* form() const { return m_form; }
    PlanCompareModel* compareModel() const { return m_compareModel; }
    ModeCompareChart* chart() const { return m_chart; }
    QTableWidget* microbatchTable() const { return m_microbatches; }
    QTableView* compareTable() const { return m_compareTable; }
    QString planSummary() const;
    // What the comparison recommends (the mode per batch, `auto`'s threshold); empty before one.
    QString compareSummary() const;
    bool hasPlans() const;

    bool exportCompareCsv(const QString& path, QString* error) const;

    // The Galvatron profile and cost model of the last search, offered as a cost model source.
    void setSearchCostModel(std::shared_ptr<const planner::LayerCostModel> model, const QString& description);

public Q_SLOTS:
    void planBatch(); // normal and fast on the whole batch
    void compareModes(); // plan-compare over the form's batches
    void openInTimeline();
    void exportCompareCsvWithDialog();

private:
    // The form's inputs into the controller; false (and the problem shown) when they cannot be.
    bool applyForm(bool withCompareBatches);
    void showPlans(const planner::ModePair& plans, const QString& costModelName);
    void showMicrobatches();
    void showRecommendations(const std::vector<planner::PlanCompareRow>& rows);
    void showFailure(const QString& message);

    controllers::PlannerController* m_controller;
    PlannerForm* m_form;
    QPushButton* m_plan;
    QPushButton* m_compare;
    QPushButton* m_openTimeline;
    QTabWidget* m_tabs;
    ModeCompareChart* m_chart;
    PlanCompareModel* m_compareModel;
    QTableView* m_compareTable;
    QLabel* m_summary;
    QLabel* m_compareSummary;
    QComboBox* m_showMode;
    QTableWidget* m_microbatches;
    QAction* m_exportCsv;
};

} // namespace stratex::ui
