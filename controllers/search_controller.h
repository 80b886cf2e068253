// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/common/work_budget.h"
#include "core/galvatron/cost_model.h"
#include "core/export/plan_export.h"

#include "controllers/plan_export.h"
#include "core/profile/profile_discovery.h"
#include "core/ranks/parallel_config.h"
#include "core/galvatron/evaluate.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_result.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting.h"

#include "controllers/timeline_request.h"

namespace stratex::planner {
class LayerCostModel;
}
namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// What the user asks to search: the profile files, the settings and the flags the user gave
// (the others may come from the profiles), and how to run.
struct SearchRequest {
    profile::ProfileDiscovery discovery;
    galvatron::SearchSettings settings;
    settings::SettingNames given;
    int threads = 0; // 0: all cores
    int top_k = 20;
    // The best plan's rank layout and timeline follow as bestPlanViewsReady.
    bool show_best_plan = false;
};

// A finished search: the result, the settings as resolved from the profiles (sequence length,
// model name, cluster of a synthesized set) and the cost model, kept for costing plans.
struct SearchOutcome {
    QString profiles_dir;
    QString strategy_file; // the outcome of openStrategy: the file costed
    galvatron::SearchResult result;
    galvatron::SearchSettings settings;
    std::shared_ptr<const galvatron::CostModel> model;
    bool estimated_profiles = false;
    // The model and the cluster the exports carry (a synthesized set's; measured profiles give
    // neither): without a model the launch-script exports name the fields they miss.
    galvatron::ResolvedModel description;
    std::optional<hardware::ClusterDescription> cluster;
};

enum class PlanSet { Top, Pareto };

// The Search page's state below its widgets: runs the search (best plan so far while it runs),
// keeps the outcome and the selected plan's evaluation, simulates plans for the Timeline page,
// gives rank layouts and writes exports. Each kind of job has its own runner, so a new
// selection never drops a timeline the user asked for.
class SearchController : public QObject {
    Q_OBJECT
public:
    explicit SearchController(QObject* parent = nullptr);
    ~SearchController() override;

    void run(SearchRequest request);
    void cancel();

    // The core's work estimate of the request's settings (search_work.h) when it exceeds the
    // budget and the request has not lifted it: the page asks before run(). Nothing for settings
    // the search refuses anyway (invalid, or beyond the hard limit on tasks): run() reports those
    // as failures. Cheap: no profile is read and no task list built.
    static std::optional<WorkEstimate> beyondWorkBudget(const SearchRequest& request);

    // Costs a strategy file (Galvatron's or Stratex's) as the outcome of a search with that one
    // plan: on profiles synthesized for the model and cluster the file carries, else on the
    // profiles of `discovery` with `settings` (the file's search settings win). False with `error`
    // (naming file and key) when the file is not a valid strategy or nothing can cost it;
    // searchFinished follows otherwise, or searchFailed.
    bool openStrategy(const QString& path, const galvatron::SearchSettings& settings,
        const profile::ProfileDiscovery& discovery, QString* error);

    std::shared_ptr<const SearchOutcome> outcome() const { return m_outcome; }
    // The plans of a set (empty before the first search).
    const std::vector<galvatron::Plan>& plans(PlanSet set) const;

    // Costs the plan (a plan of the outcome) on a worker; evaluationReady follows. nullptr clears.
    void selectPlan(const galvatron::Plan* plan);
    const galvatron::Evaluation* selectedEvaluation() const { return m_evaluation ? &*m_evaluation : nullptr; }
    // The rank grid the selected plan runs on.
    std::optional<ranks::ParallelConfig> selectedRankLayout() const;
    // Simulates the selected plan's pipeline on a worker; timelineReady follows.
    void simulateSelectedPlan();

    // Writes the selected plan for a framework (atomically; scripts executable). False with
    // `error` when no plan is selected, the format needs a model the profiles do not give or the
    // file cannot be written. `warnings` receives what the export says the user must know.
    // `fallback` gives the model and the cluster where the outcome has none (measured profiles).
    bool exportSelectedPlan(exporting::ExportFormat format, const QString& path, QString* error,
        QStringList* warnings = nullptr, const exporting::ExportContext* fallback = nullptr) const;
    // The selected plan for an export target (exporting::exportTargets: the PaddleNLP pair as one
    // set), with the plan's identity and every warning; nullopt with `error` as exportSelectedPlan.
    std::optional<PlanExport> exportedSelectedPlan(exporting::ExportFormat target, QString* error,
        const exporting::ExportContext* fallback = nullptr) const;
    // The file name the framework expects (Galvatron's encodes cluster and model).
    QString defaultExportName(exporting::ExportFormat format) const;

    jobs::JobRunner* searchRunner() const { return m_searchRunner; }
    jobs::JobRunner* evaluateRunner() const { return m_evaluateRunner; }
    jobs::JobRunner* simulateRunner() const { return m_simulateRunner; }
    QList<jobs::JobRunner*> runners() const;

Q_SIGNALS:
    void searchStarted(const QString& profilesDir);
    // reserveMb: the search's allocator reserve (galvatron::MemoryBudget), for the planned peak.
    void bestSoFar(const stratex::galvatron::Plan& plan, int reserveMb);
    void searchFinished(std::shared_ptr<const stratex::controllers::SearchOutcome> outcome);
    void searchFailed(const QString& message);
    void searchCancelled();
    // The search's Galvatron profile as a layer cost model, for the planner.
    void layerCostModelReady(std::shared_ptr<const stratex::planner::LayerCostModel> model, const QString& description);
    void selectionCleared();
    void evaluationReady(const stratex::galvatron::Evaluation& evaluation);
    void timelineReady(const stratex::controllers::TimelineRequest& request);
    // After run() with show_best_plan: the best plan's rank layout and simulated timeline.
    void bestPlanViewsReady(
        const stratex::ranks::ParallelConfig& config, const stratex::controllers::TimelineRequest& timeline);
    void jobFailed(const QString& message);

private:
    void finish(std::shared_ptr<const SearchOutcome> outcome, bool showBestPlan);

    jobs::JobRunner* m_searchRunner;
    jobs::JobRunner* m_evaluateRunner;
    jobs::JobRunner* m_simulateRunner;
    jobs::JobRunner* m_bestViewsRunner;
    std::shared_ptr<const SearchOutcome> m_outcome;
    std::optional<galvatron::Evaluation> m_evaluation;
};

// The model the outcome's exports carry: resolveModel on a synthesized set's model with the settings
// the user gave (`given`), and the set's cluster.
void describeModel(SearchOutcome& outcome, const galvatron::SearchInputs& inputs, const settings::SettingNames& given);

// The timeline of an evaluated plan: its pipeline simulated with uniform micro-batches.
TimelineRequest simulatePlanTimeline(const galvatron::Evaluation& evaluation);

} // namespace stratex::controllers
