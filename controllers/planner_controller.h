// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QList>
#include <QObject>
#include <QString>

#include "core/common/work_budget.h"
#include "core/planner/mode_pair.h"
#include "core/planner/planner_compare.h"

#include "controllers/planner_inputs.h"
#include "controllers/timeline_request.h"

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// The Planner page without widgets: its inputs, the normal/fast plan pair of the whole batch,
// the mode comparison over growing batches and which of the two plans is shown. One job runner
// plans the batch, another compares the modes; results arrive as signals on this object's
// thread, errors (bad inputs at once, failed jobs later) as failed().
class PlannerController : public QObject {
    Q_OBJECT
public:
    explicit PlannerController(QObject* parent = nullptr);
    ~PlannerController() override;

    const PlannerInputs& inputs() const { return m_inputs; }
    void setCostModelFile(const QString& path);
    void useSearchCostModel(); // the Galvatron profile setSearchCostModel offered
    void setSyntheticLengths(const planner::SyntheticLengthSpec& spec);
    void setLengthsFile(const QString& path);
    void setConfig(const planner::PlannerConfig& config);
    void setCompareBatches(std::vector<int> batches);
    void setCompareSeeds(int seeds); // at least 1

    // The Galvatron profile and cost model of the last search, offered as a cost model.
    void setSearchCostModel(std::shared_ptr<const planner::LayerCostModel> model, const QString& description);

    // Both modes on the whole batch, then plansReady -- or, beyond the work budget and unless
    // liftWorkBudget, workBudgetExceeded (the GUI asks, then plans again with the budget lifted).
    void planBatch(bool liftWorkBudget = false);
    // Both modes on each compare batch (its first B samples), then comparisonReady -- or, when the
    // whole comparison is beyond its work budget (planner::estimatePlanCompareWork) and unless
    // liftWorkBudget, compareWorkBudgetExceeded before anything is planned (the page asks).
    void compareModes(bool liftWorkBudget = false);
    // The feasible plans of the last pair as timelines, on one time axis.
    void openInTimeline();

    std::shared_ptr<const planner::ModePair> plans() const { return m_plans; }
    const std::vector<planner::PlanCompareRow>& compareRows() const { return m_compareRows; }
    // `auto` from the last comparison (planner::autoThreshold): once measured, setConfig plans
    // `auto` with this threshold instead of the configured one.
    const planner::AutoThreshold& autoThreshold() const { return m_autoThreshold; }
    // The mode recommended for the last planned batch (planner::recommendMode; undecided before).
    planner::ModeRecommendation recommendation() const;
    bool exportCompareCsv(const QString& path, QString* error) const;

    // Which plan of the pair the page details (Normal or Fast).
    void selectMode(planner::PlannerMode mode);
    planner::PlannerMode selectedMode() const { return m_selectedMode; }
    const planner::PlanResult* selectedPlan() const; // nullptr before the first pair

    jobs::JobRunner* planRunner() const { return m_planRunner; }
    jobs::JobRunner* compareRunner() const { return m_compareRunner; }
    QList<jobs::JobRunner*> jobRunners() const; // plan, compare

Q_SIGNALS:
    void plansReady(std::shared_ptr<const stratex::planner::ModePair> plans, const QString& costModelName);
    void comparisonReady(const std::vector<stratex::planner::PlanCompareRow>& rows);
    void selectedPlanChanged();
    void failed(const QString& message);
    void workBudgetExceeded(const stratex::WorkEstimate& estimate);
    void compareWorkBudgetExceeded(const stratex::WorkEstimate& estimate);
    void searchCostModelOffered(const QString& description);
    void timelinesRequested(const stratex::controllers::TimelineRequests& requests);

private:
    // The inputs a job may start from, or nothing after reporting failed().
    std::optional<PlannerInputs> inputsForJob();

    PlannerInputs m_inputs;
    jobs::JobRunner* m_planRunner;
    jobs::JobRunner* m_compareRunner;
    std::shared_ptr<const planner::ModePair> m_plans;
    QString m_plansCostModelName;
    double m_plansMemoryLimitMb = 0;
    std::vector<planner::PlanCompareRow> m_compareRows;
    planner::AutoThreshold m_autoThreshold;
    planner::PlannerMode m_selectedMode = planner::PlannerMode::Normal;
};

} // namespace stratex::controllers
