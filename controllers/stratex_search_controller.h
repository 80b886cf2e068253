// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/common/work_budget.h"
#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_robustness.h"
#include "core/megatron/strategy_search.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/megatron/stratex_request.h"
#include "core/hardware/cluster_description.h"
#include "core/ranks/parallel_config.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting.h"

#include "controllers/plan_export.h"
#include "controllers/timeline_request.h"

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// What the Search page's form says for the stratex cost model: the profile folder (a synthesized
// set gives the model and the cluster), the search table's shared settings (nodes, GPUs per node,
// memory per GPU, batch, model shape and name) with the flags the user gave, and the stratex table.
struct StratexSearchInputs {
    std::filesystem::path profiles_dir;
    galvatron::SearchSettings settings;
    settings::SettingNames given;
    megatron::StrategySearchSettings stratex;
    int threads = 0;
    int top = 20;
    bool lift_work_budget = false; // the user said "Run anyway" (beyondWorkBudget)
};

// The form as the stratex model's inputs: a synthesized set's record as the base (a measured set is
// said to be unread), the shared fields the form shows (megatron::stratexFormShows) as given. Reads the
// set's record.
megatron::StratexInputs stratexInputs(const StratexSearchInputs& form);
// The form's request by the one rule both front ends use (megatron::resolveStratexSearch); `warnings`
// gets what the resolution had to say. Throws stratex::Error naming what is missing.
megatron::StrategySearchRequest resolveStratexRequest(
    const StratexSearchInputs& inputs, std::vector<std::string>* warnings = nullptr);

// A finished stratex search, or a plan file costed as a one-plan result.
struct StratexSearchOutcome {
    QString source; // the profile folder searched, or the plan file costed
    bool plan_file = false;
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    hardware::Efficiency efficiency; // what the plans were costed with
    int global_batch_size = 0;
    double memory_limit_mb = 0;
    megatron::StrategySearchResult result;
    // Per plan of result.best: its rank range when the model is off by ±5 / ±10 % per component,
    // as `stratex-cli search --json` reports it. Empty for a plan file (nothing to rank against).
    std::vector<megatron::PlanRobustness> robustness;
    double search_time_s = 0;
    int threads = 0;
    QStringList notes;
};

// The stratex cost model below the Search page: runs megatron::searchStrategies on a worker (progress,
// cancel), keeps the outcome, costs plan files, simulates a plan's pipeline (1F1B, interleaved with
// its model chunks, ZB-H1) for the Timeline page, gives its rank layout and writes plan files.
// Selecting a plan needs no job: the search has costed every plan it keeps.
class StratexSearchController : public QObject {
    Q_OBJECT
public:
    explicit StratexSearchController(QObject* parent = nullptr);
    ~StratexSearchController() override;

    // With `showBestPlan`, the best plan's rank layout and timeline follow as bestPlanViewsReady.
    void run(StratexSearchInputs inputs, bool showBestPlan = false);
    // The search's estimate (megatron/search_work_estimate.h) when it is beyond the work budget and
    // the inputs have not lifted it: the page asks before run(). Nothing for inputs that do not
    // resolve (run() reports why).
    static std::optional<WorkEstimate> beyondWorkBudget(const StratexSearchInputs& inputs);
    void cancel();
    // Costs a stratex plan file (megatron::isPlanFile) as a one-plan outcome: on the model and cluster
    // it carries, else on `fallback`'s (the form's synthesized set). False with `error` naming file
    // and key when it cannot be read or nothing says its model; searchFinished follows otherwise.
    bool openPlan(const QString& path, const StratexSearchInputs& fallback, QString* error);

    std::shared_ptr<const StratexSearchOutcome> outcome() const { return m_outcome; }

    // The rank grid a plan of the outcome runs on.
    std::optional<ranks::ParallelConfig> rankLayout(const megatron::Estimate& plan) const;
    // Simulates a plan's pipeline on a worker; timelineReady follows.
    void simulatePlan(const megatron::Estimate& plan);
    // Writes a plan of the outcome as a stratex plan file, atomically.
    bool savePlan(const megatron::Estimate& plan, const QString& path, QString* error) const;
    // The file savePlan writes (megatron::planFileText); empty without an outcome.
    std::string planFileText(const megatron::Estimate& plan) const;
    // "llama3-70b — tp2 pp2 vpp5 cp2 …": the outcome's model and the plan's layout.
    QString planIdentity(const megatron::Estimate& plan) const;
    // A plan of the outcome for an export target (exporting::exportTargets), through the plan file
    // savePlan would write (exporting::exportPlanFileText): each file byte for byte
    // `stratex-cli export --strategy SAVED --to FORMAT`. nullopt with `error` without an outcome or
    // when the target cannot express the plan (Galvatron and PaddleNLP refuse virtual stages, context
    // and expert parallelism).
    std::optional<PlanExport> exportPlan(const megatron::Estimate& plan, exporting::ExportFormat target,
        QString* error) const;

    jobs::JobRunner* searchRunner() const { return m_searchRunner; }
    jobs::JobRunner* simulateRunner() const { return m_simulateRunner; }
    QList<jobs::JobRunner*> runners() const;

Q_SIGNALS:
    void searchStarted(const QString& source);
    void searchFinished(std::shared_ptr<const stratex::controllers::StratexSearchOutcome> outcome);
    void searchFailed(const QString& message);
    void searchCancelled();
    void timelineReady(const stratex::controllers::TimelineRequest& request);
    void bestPlanViewsReady(
        const stratex::ranks::ParallelConfig& config, const stratex::controllers::TimelineRequest& timeline);
    void jobFailed(const QString& message);

private:
    void finish(std::shared_ptr<const StratexSearchOutcome> outcome, bool showBestPlan);

    jobs::JobRunner* m_searchRunner;
    jobs::JobRunner* m_simulateRunner;
    jobs::JobRunner* m_bestViewsRunner;
    std::shared_ptr<const StratexSearchOutcome> m_outcome;
};

// A plan's rank grid: Megatron's tp-cp-ep-dp-pp order over the plan's degrees.
ranks::ParallelConfig stratexRankLayout(const megatron::ParallelStrategy& strategy, int gpusPerNode);

// The plan's pipeline simulated as its estimate simulates it, with memory curves (each stage's
// weights, gradients, optimizer, logits and reserve from the start, activations as micro-batches
// keep them) against the plan's memory limit.
TimelineRequest simulateStratexTimeline(const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster, const megatron::Estimate& plan);

// "tp2 pp4 vpp2 ... — 1.234 s/iteration": a plan's one-line name.
QString stratexPlanName(const megatron::Estimate& plan);

} // namespace stratex::controllers
