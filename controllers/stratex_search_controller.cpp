// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/stratex_search_controller.h"

#include <QFileInfo>
#include <QLocale>

#include "core/common/error.h"
#include "core/export/export_set.h"
#include "core/export/plan_file_export.h"
#include "core/megatron/plan_file.h"
#include "core/megatron/strategy_ranks.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/megatron/search_work_estimate.h"
#include "core/megatron/stratex_request.h"

#include "controllers/save_text_file.h"
#include "jobs/job_runner.h"

namespace stratex::controllers {

megatron::StratexInputs stratexInputs(const StratexSearchInputs& form)
{
    megatron::StratexInputs inputs;
    if (!form.profiles_dir.empty()) {
        if (const auto record = profile::synth::readSynthesisRecord(form.profiles_dir))
            megatron::adoptSynthesizedSet(inputs, *record);
        else
            inputs.measured_profiles = form.profiles_dir.string();
    }
    inputs.settings = form.settings;
    // The form's fields the stratex model reads; a hidden one is not the user's statement.
    for (const std::string& flag : form.given) {
        if (megatron::stratexFormShows(flag))
            inputs.given.insert(flag);
    }
    inputs.stratex = form.stratex;
    inputs.top = form.top;
    inputs.threads = form.threads;
    return inputs;
}

megatron::StrategySearchRequest resolveStratexRequest(const StratexSearchInputs& inputs, std::vector<std::string>* warnings)
{
    return megatron::resolveStratexSearch(stratexInputs(inputs), warnings);
}

ranks::ParallelConfig stratexRankLayout(const megatron::ParallelStrategy& s, int gpusPerNode)
{
    return megatron::rankConfig(s, gpusPerNode);
}

QString stratexPlanName(const megatron::Estimate& plan)
{
    return QObject::tr("%1 — %2 s/iteration")
        .arg(QString::fromStdString(plan.strategy.notation()), QLocale::c().toString(plan.iteration_ms / 1e3, 'f', 3));
}

TimelineRequest simulateStratexTimeline(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const megatron::Estimate& plan)
{
    return { QObject::tr("stratex plan: %1").arg(stratexPlanName(plan)),
        std::make_shared<const sim::Timeline>(megatron::stratexPlanTimeline(model, cluster, plan)), plan.memory_limit_mb };
}

StratexSearchController::StratexSearchController(QObject* parent)
    : QObject(parent)
    , m_searchRunner(new jobs::JobRunner(this))
    , m_simulateRunner(new jobs::JobRunner(this))
    , m_bestViewsRunner(new jobs::JobRunner(this))
{
    connect(m_searchRunner, &jobs::JobRunner::failed, this, &StratexSearchController::searchFailed);
    connect(m_searchRunner, &jobs::JobRunner::cancelled, this, &StratexSearchController::searchCancelled);
    for (jobs::JobRunner* runner : { m_simulateRunner, m_bestViewsRunner })
        connect(runner, &jobs::JobRunner::failed, this, &StratexSearchController::jobFailed);
}

StratexSearchController::~StratexSearchController() = default;

QList<jobs::JobRunner*> StratexSearchController::runners() const
{
    return { m_searchRunner, m_simulateRunner, m_bestViewsRunner };
}

void StratexSearchController::run(StratexSearchInputs inputs, bool showBestPlan)
{
    const QString source = QString::fromStdString(inputs.profiles_dir.string());
    Q_EMIT searchStarted(source);
    m_searchRunner->start<std::shared_ptr<const StratexSearchOutcome>>(
        tr("Searching Megatron strategies"),
        [inputs = std::move(inputs), source](ProgressSink& progress) {
            progress.report(0.0, "resolving the model and the cluster");
            std::vector<std::string> warnings;
            const megatron::StrategySearchRequest request = resolveStratexRequest(inputs, &warnings);
            auto outcome = std::make_shared<StratexSearchOutcome>();
            megatron::StratexSearchRun run = megatron::runStratexSearch(request, progress, inputs.lift_work_budget);
            outcome->result = std::move(run.result);
            outcome->robustness = std::move(run.robustness);
            outcome->search_time_s = run.search_time_s;
            outcome->threads = run.threads;
            outcome->efficiency = request.efficiency;
            for (const std::string& warning : warnings)
                outcome->notes << QString::fromStdString(warning);
            outcome->source = source;
            outcome->model = request.model;
            outcome->cluster = request.cluster;
            outcome->global_batch_size = request.global_batch_size;
            outcome->memory_limit_mb = request.memory_limit_mb;
            return std::shared_ptr<const StratexSearchOutcome>(std::move(outcome));
        },
        [this, showBestPlan](
            std::shared_ptr<const StratexSearchOutcome> outcome) { finish(std::move(outcome), showBestPlan); });
}

std::optional<WorkEstimate> StratexSearchController::beyondWorkBudget(const StratexSearchInputs& inputs)
{
    if (inputs.lift_work_budget)
        return std::nullopt;
    try {
        const WorkEstimate estimate = megatron::estimateStratexSearchWork(resolveStratexRequest(inputs));
        if (estimate.exceedsBudget())
            return estimate;
    } catch (const Error&) {
    }
    return std::nullopt;
}

void StratexSearchController::cancel()
{
    m_searchRunner->cancel();
}

bool StratexSearchController::openPlan(const QString& path, const StratexSearchInputs& fallback, QString* error)
{
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    megatron::ParallelStrategy strategy;
    std::vector<std::string> assumptions;
    try {
        const megatron::PartialPlanFile plan = megatron::PartialPlanFile::load(path.toStdString());
        if (plan.model() && plan.cluster()) {
            model = *plan.model();
            cluster = *plan.cluster();
        } else {
            megatron::StrategySearchRequest resolved;
            try {
                StratexSearchInputs inputs = fallback;
                inputs.stratex.global_batch_size = std::max(1, inputs.stratex.global_batch_size);
                resolved = resolveStratexRequest(inputs);
            } catch (const Error& missing) {
                throw Error(
                    plan.file() + ": the file names no model or cluster, and the form gives none: " + missing.what());
            }
            model = plan.model().value_or(resolved.model);
            cluster = plan.cluster().value_or(resolved.cluster);
        }
        strategy = plan.strategy(model, static_cast<long long>(cluster.worldSize()), &assumptions);
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromUtf8(failure.what());
        return false;
    }
    Q_EMIT searchStarted(path);
    m_searchRunner->start<std::shared_ptr<const StratexSearchOutcome>>(
        tr("Costing %1").arg(QFileInfo(path).fileName()),
        [path, model, cluster, strategy, assumptions](ProgressSink& progress) {
            progress.report(0.0, "costing the plan");
            const hardware::HardwareModel hw(cluster, hardware::efficiencyFor(cluster));
            auto outcome = std::make_shared<StratexSearchOutcome>();
            outcome->source = path;
            outcome->plan_file = true;
            outcome->model = model;
            outcome->cluster = cluster;
            outcome->efficiency = hardware::efficiencyFor(cluster);
            outcome->global_batch_size = strategy.global_batch_size;
            const megatron::Estimate e = megatron::estimate(model, strategy, hw);
            outcome->memory_limit_mb = e.memory_limit_mb;
            if (!e.problems.empty()) {
                std::string problems;
                for (const std::string& problem : e.problems)
                    problems += (problems.empty() ? "" : "; ") + problem;
                throw Error(path.toStdString() + ": Megatron-LM would not start this strategy: " + problems);
            }
            outcome->result.best = { e };
            outcome->result.evidence = { megatron::stratexPlanEvidence(model, cluster, strategy) };
            outcome->result.twins = { {} };
            for (const std::string& assumption : assumptions)
                outcome->notes << QString::fromStdString(assumption);
            return std::shared_ptr<const StratexSearchOutcome>(std::move(outcome));
        },
        [this](std::shared_ptr<const StratexSearchOutcome> outcome) { finish(std::move(outcome), false); });
    return true;
}

void StratexSearchController::finish(std::shared_ptr<const StratexSearchOutcome> outcome, bool showBestPlan)
{
    m_outcome = std::move(outcome);
    Q_EMIT searchFinished(m_outcome);
    if (!showBestPlan || m_outcome->result.best.empty())
        return;
    const std::shared_ptr<const StratexSearchOutcome> searched = m_outcome;
    using Views = std::pair<ranks::ParallelConfig, TimelineRequest>;
    m_bestViewsRunner->start<Views>(
        tr("Simulating the best plan's pipeline"),
        [searched](ProgressSink&) {
            const megatron::Estimate& best = searched->result.best.front();
            return Views { stratexRankLayout(best.strategy, searched->cluster.gpus_per_node),
                simulateStratexTimeline(searched->model, searched->cluster, best) };
        },
        [this](Views views) { Q_EMIT bestPlanViewsReady(views.first, views.second); });
}

std::optional<ranks::ParallelConfig> StratexSearchController::rankLayout(const megatron::Estimate& plan) const
{
    if (!m_outcome)
        return std::nullopt;
    return stratexRankLayout(plan.strategy, m_outcome->cluster.gpus_per_node);
}

void StratexSearchController::simulatePlan(const megatron::Estimate& plan)
{
    if (!m_outcome)
        return;
    const std::shared_ptr<const StratexSearchOutcome> outcome = m_outcome;
    m_simulateRunner->start<TimelineRequest>(
        tr("Simulating the plan's pipeline"),
        [outcome, plan](ProgressSink&) { return simulateStratexTimeline(outcome->model, outcome->cluster, plan); },
        [this](TimelineRequest request) { Q_EMIT timelineReady(request); });
}

bool StratexSearchController::savePlan(const megatron::Estimate& plan, const QString& path, QString* error) const
{
    if (!m_outcome) {
        if (error)
            *error = tr("no plan: run the search first");
        return false;
    }
    return saveTextFile(path, planFileText(plan), error);
}

std::string StratexSearchController::planFileText(const megatron::Estimate& plan) const
{
    return m_outcome ? megatron::planFileText(m_outcome->model, m_outcome->cluster, plan) : std::string();
}

QString StratexSearchController::planIdentity(const megatron::Estimate& plan) const
{
    const QString layout = QString::fromStdString(plan.strategy.notation());
    return m_outcome ? QStringLiteral("%1 — %2").arg(QString::fromStdString(m_outcome->model.name), layout) : layout;
}

std::optional<PlanExport> StratexSearchController::exportPlan(
    const megatron::Estimate& plan, exporting::ExportFormat target, QString* error) const
{
    if (!m_outcome) {
        if (error)
            *error = tr("no plan: run the search first");
        return std::nullopt;
    }
    PlanExport out;
    out.target = target;
    out.identity = planIdentity(plan);
    const std::string text = planFileText(plan);
    // Named as the file it would be saved as, for the export's errors ("<name>: not exported to ...").
    const std::string name = QStringLiteral("%1-tp%2-pp%3-dp%4.json")
                                 .arg(QString::fromStdString(m_outcome->model.name))
                                 .arg(plan.strategy.tp)
                                 .arg(plan.strategy.pp)
                                 .arg(plan.strategy.dp)
                                 .toStdString();
    try {
        for (const exporting::ExportSetFile& member : exporting::exportSet(target)) {
            exporting::ExportedFile file = exporting::exportPlanFileText(member.format, text, name);
            for (const exporting::ExportNote& note : file.notes) {
                const QString line = QString::fromStdString(exporting::exportNoteLine(note));
                if (!out.warnings.contains(line))
                    out.warnings << line;
            }
            out.files.push_back({ member.path, std::move(file) });
        }
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromUtf8(failure.what());
        return std::nullopt;
    }
    return out;
}

} // namespace stratex::controllers
