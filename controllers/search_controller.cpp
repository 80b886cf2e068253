// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/search_controller.h"

#include <QFileInfo>
#include <QLocale>

#include "core/common/error.h"
#include "core/export/export_set.h"
#include "core/planner/galvatron_layer_cost_model.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/plan_rank_layout.h"
#include "core/galvatron/plan_timeline.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_work.h"
#include "core/galvatron/strategy_file.h"
#include "core/galvatron/synthesized_inputs.h"
#include "core/sim/simulator.h"

#include "controllers/save_text_file.h"
#include "jobs/job_runner.h"

namespace stratex::controllers {

using galvatron::Evaluation;
using galvatron::Plan;

void describeModel(SearchOutcome& outcome, const galvatron::SearchInputs& inputs, const settings::SettingNames& given)
{
    exporting::SearchedModel searched = exporting::searchedModel(inputs, outcome.settings, given);
    outcome.description = std::move(searched.model);
    outcome.cluster = std::move(searched.cluster);
}

TimelineRequest simulatePlanTimeline(const Evaluation& evaluation)
{
    const galvatron::PlanTimelineInput input = galvatron::planTimelineInput(evaluation);
    sim::SimulationResult simulated = sim::simulate(input.input, input.schedule);
    const Plan& plan = evaluation.plan;
    return { QObject::tr("search plan: pp %1, %2 micro-batches, gbsz %3 (estimate %4 s)")
                 .arg(plan.pp)
                 .arg(plan.chunks)
                 .arg(plan.gbsz)
                 .arg(QLocale::c().toString(plan.time_cost_s, 'f', 3)),
        std::make_shared<const sim::Timeline>(std::move(simulated.timeline)), input.memory_limit_mb };
}

SearchController::SearchController(QObject* parent)
    : QObject(parent)
    , m_searchRunner(new jobs::JobRunner(this))
    , m_evaluateRunner(new jobs::JobRunner(this))
    , m_simulateRunner(new jobs::JobRunner(this))
    , m_bestViewsRunner(new jobs::JobRunner(this))
{
    connect(m_searchRunner, &jobs::JobRunner::failed, this, &SearchController::searchFailed);
    connect(m_searchRunner, &jobs::JobRunner::cancelled, this, &SearchController::searchCancelled);
    for (jobs::JobRunner* runner : { m_evaluateRunner, m_simulateRunner, m_bestViewsRunner })
        connect(runner, &jobs::JobRunner::failed, this, &SearchController::jobFailed);
}

SearchController::~SearchController() = default;

QList<jobs::JobRunner*> SearchController::runners() const
{
    return { m_searchRunner, m_evaluateRunner, m_simulateRunner, m_bestViewsRunner };
}

std::optional<WorkEstimate> SearchController::beyondWorkBudget(const SearchRequest& request)
{
    try {
        request.settings.validate();
        galvatron::requireBoundedSearch(request.settings);
    } catch (const WorkBudgetExceeded& beyond) {
        return beyond.estimate();
    } catch (const Error&) {
        // Refused outright: the search job says why, as for any bad setting.
    }
    return std::nullopt;
}

void SearchController::run(SearchRequest request)
{
    const QString dir = QString::fromStdString(request.discovery.profilesDir.string());
    Q_EMIT searchStarted(dir);
    // The best plan so far travels from the workers to this object while the search runs.
    const auto post = m_searchRunner->posterForNextJob();
    const bool showBestPlan = request.show_best_plan;
    m_searchRunner->start<std::shared_ptr<const SearchOutcome>>(
        tr("Searching strategies"),
        [request = std::move(request), dir, post, this](ProgressSink& progress) mutable {
            progress.report(0.0, "loading profiles");
            galvatron::SearchSettings settings = request.settings;
            const galvatron::SearchInputs inputs = galvatron::loadSearchInputs(request.discovery, settings, request.given);
            auto model = std::make_shared<const galvatron::CostModel>(galvatron::buildCostModel(inputs, settings));
            auto outcome = std::make_shared<SearchOutcome>();
            outcome->profiles_dir = dir;
            const int reserveMb
                = galvatron::memoryBudget(settings.memory_constraint_gb, settings.allocator_reserve_fraction).reserve_mb;
            outcome->result = galvatron::search(*model, settings, progress, request.threads, request.top_k,
                [post, reserveMb, this](const Plan& plan) {
                    post([this, plan, reserveMb] { Q_EMIT bestSoFar(plan, reserveMb); });
                });
            outcome->settings = settings;
            outcome->model = std::move(model);
            outcome->estimated_profiles = inputs.estimated;
            describeModel(*outcome, inputs, request.given);
            return std::shared_ptr<const SearchOutcome>(std::move(outcome));
        },
        [this, showBestPlan](
            std::shared_ptr<const SearchOutcome> outcome) { finish(std::move(outcome), showBestPlan); });
}

bool SearchController::openStrategy(const QString& path, const galvatron::SearchSettings& settings,
    const profile::ProfileDiscovery& discovery, QString* error)
{
    galvatron::StrategyRun run;
    galvatron::Plan plan;
    try {
        const galvatron::StrategyFile strategy = galvatron::StrategyFile::load(path.toStdString());
        run = galvatron::resolveStrategyRun(strategy, settings, {}, {}, {});
        run.settings.settle_bsz = strategy.global_bsz;
        run.settings.validate();
        plan = galvatron::planFromStrategyFile(strategy, run.settings);
        if (!(run.model.model && run.cluster)) {
            if (discovery.profilesDir.empty())
                throw Error(strategy.file
                    + ": the file names no model and cluster to estimate profiles from, and no profiles folder is "
                      "chosen: choose the folder of the profiles first");
            // A synthesized folder says its model: a strategy of another layer count is not its.
            const auto record = profile::synth::readSynthesisRecord(discovery.profilesDir);
            if (record && record->model.num_layers != strategy.layers())
                throw Error(strategy.file + ": a strategy for " + std::to_string(strategy.layers())
                    + " layers, but the profiles in " + discovery.profilesDir.string() + " are " + record->model.name
                    + "'s " + std::to_string(record->model.num_layers)
                    + ": choose the profiles of the strategy's model");
        }
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromUtf8(failure.what());
        return false;
    }
    m_searchRunner->start<std::shared_ptr<const SearchOutcome>>(
        tr("Costing %1").arg(QFileInfo(path).fileName()),
        [run = std::move(run), plan = std::move(plan), discovery, path](ProgressSink& progress) {
            progress.report(0.0, "loading profiles");
            galvatron::StrategyRun resolved = run;
            const bool estimate = resolved.model.model && resolved.cluster;
            const galvatron::SearchInputs inputs = estimate
                ? galvatron::synthesizedInputs(*resolved.model.model, *resolved.cluster, resolved.settings.mixed_precision)
                : galvatron::loadSearchInputs(discovery, resolved.settings, resolved.settled);
            auto model = std::make_shared<const galvatron::CostModel>(galvatron::buildCostModel(inputs, resolved.settings));
            progress.throwIfCancelled();
            const galvatron::Evaluation evaluation = galvatron::evaluate(*model, resolved.settings, plan);
            auto outcome = std::make_shared<SearchOutcome>();
            outcome->profiles_dir = QString::fromStdString(discovery.profilesDir.string()); // the form's, kept
            outcome->strategy_file = path;
            outcome->result.best = evaluation.plan;
            outcome->result.top = { evaluation.plan };
            outcome->result.pareto = { evaluation.plan };
            if (!evaluation.fits)
                outcome->result.notes.push_back("the strategy does not fit the memory budget");
            outcome->settings = resolved.settings;
            outcome->model = std::move(model);
            outcome->estimated_profiles = inputs.estimated;
            outcome->description = resolved.model;
            outcome->cluster = resolved.cluster;
            return std::shared_ptr<const SearchOutcome>(std::move(outcome));
        },
        [this](std::shared_ptr<const SearchOutcome> outcome) { finish(std::move(outcome), false); });
    return true;
}

void SearchController::cancel()
{
    m_searchRunner->cancel();
}

void SearchController::finish(std::shared_ptr<const SearchOutcome> outcome, bool showBestPlan)
{
    m_outcome = std::move(outcome);
    m_evaluation.reset();
    Q_EMIT searchFinished(m_outcome);
    const galvatron::SearchSettings& settings = m_outcome->settings;
    Q_EMIT layerCostModelReady(std::make_shared<const planner::GalvatronLayerCostModel>(*m_outcome->model),
        tr("%1 at sequence length %2").arg(QString::fromStdString(settings.model.name)).arg(settings.model.seq_length));
    if (!showBestPlan || !m_outcome->result.best)
        return;
    // The best plan's views have a runner of their own: selecting or simulating other plans
    // meanwhile neither drops them nor is dropped by them.
    const std::shared_ptr<const SearchOutcome> searched = m_outcome;
    using Views = std::pair<ranks::ParallelConfig, TimelineRequest>;
    m_bestViewsRunner->start<Views>(
        tr("Simulating the best plan's pipeline"),
        [searched](ProgressSink& progress) {
            const Evaluation evaluation
                = galvatron::evaluate(*searched->model, searched->settings, *searched->result.best);
            progress.throwIfCancelled();
            return Views { galvatron::planRankLayout(evaluation.plan, searched->settings.num_gpus_per_node),
                simulatePlanTimeline(evaluation) };
        },
        [this](Views views) { Q_EMIT bestPlanViewsReady(views.first, views.second); });
}

const std::vector<Plan>& SearchController::plans(PlanSet set) const
{
    static const std::vector<Plan> none;
    if (!m_outcome)
        return none;
    return set == PlanSet::Top ? m_outcome->result.top : m_outcome->result.pareto;
}

void SearchController::selectPlan(const Plan* plan)
{
    if (!plan || !m_outcome) {
        m_evaluateRunner->cancel();
        m_evaluation.reset();
        Q_EMIT selectionCleared();
        return;
    }
    // Until the new plan is costed, nothing is selected: its views must not show the old plan.
    m_evaluation.reset();
    const std::shared_ptr<const SearchOutcome> outcome = m_outcome;
    m_evaluateRunner->start<Evaluation>(
        tr("Costing the plan"),
        [outcome, chosen = *plan](
            ProgressSink&) { return galvatron::evaluate(*outcome->model, outcome->settings, chosen); },
        [this](Evaluation evaluation) {
            m_evaluation = std::move(evaluation);
            Q_EMIT evaluationReady(*m_evaluation);
        });
}

std::optional<ranks::ParallelConfig> SearchController::selectedRankLayout() const
{
    if (!m_evaluation || !m_outcome)
        return std::nullopt;
    return galvatron::planRankLayout(m_evaluation->plan, m_outcome->settings.num_gpus_per_node);
}

void SearchController::simulateSelectedPlan()
{
    if (!m_evaluation)
        return;
    m_simulateRunner->start<TimelineRequest>(
        tr("Simulating the plan's pipeline"),
        [evaluation = *m_evaluation](ProgressSink&) { return simulatePlanTimeline(evaluation); },
        [this](TimelineRequest request) { Q_EMIT timelineReady(request); });
}

namespace {

std::optional<exporting::ExportedFile> exportedFile(const SearchOutcome& outcome, const galvatron::Plan& plan,
    exporting::ExportFormat format, QString* error, const exporting::ExportContext* fallback)
{
    const std::optional<model::ModelDescription> model = outcome.description.model ? outcome.description.model
        : fallback                                                                 ? fallback->model
                                                                                   : std::nullopt;
    const std::optional<hardware::ClusterDescription> cluster = outcome.cluster ? outcome.cluster
        : fallback                                                                    ? fallback->cluster
                                                                                      : std::nullopt;
    if (exporting::exportNeedsModel(format) && !model) {
        if (error)
            *error = QString::fromStdString(galvatron::missingModelMessage(exporting::exportFormatTitle(format),
                         "the profiles (measured, not synthesized)", outcome.description.missing))
                + QObject::tr(" to `stratex-cli export` with the Galvatron strategy, or search a profile set "
                              "synthesized for the model (Synthesize…).");
        return std::nullopt;
    }
    try {
        return exporting::exportPlan(format, plan, outcome.settings, { model, cluster, outcome.model });
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromUtf8(failure.what());
        return std::nullopt;
    }
}

} // namespace

bool SearchController::exportSelectedPlan(exporting::ExportFormat format, const QString& path, QString* error,
    QStringList* warnings, const exporting::ExportContext* fallback) const
{
    if (!m_evaluation || !m_outcome) {
        if (error)
            *error = tr("no plan selected: run the search and select a plan");
        return false;
    }
    const std::optional<exporting::ExportedFile> exported
        = exportedFile(*m_outcome, m_evaluation->plan, format, error, fallback);
    if (!exported)
        return false;
    if (warnings) {
        for (const exporting::ExportNote& note : exported->notes)
            *warnings << QString::fromStdString(exporting::exportNoteLine(note));
    }
    return saveTextFile(path, exported->text, error, exported->executable);
}

std::optional<PlanExport> SearchController::exportedSelectedPlan(
    exporting::ExportFormat target, QString* error, const exporting::ExportContext* fallback) const
{
    if (!m_evaluation || !m_outcome) {
        if (error)
            *error = tr("no plan selected: run the search and select a plan");
        return std::nullopt;
    }
    PlanExport out;
    out.target = target;
    const galvatron::Plan& plan = m_evaluation->plan;
    const std::string modelName = m_outcome->description.model ? m_outcome->description.model->name
        : fallback && fallback->model                         ? fallback->model->name
                                                               : m_outcome->settings.model.name;
    out.identity = QStringLiteral("%1 — %2").arg(
        QString::fromStdString(modelName), QString::fromStdString(plan.layerSummary()));
    for (const exporting::ExportSetFile& member : exporting::exportSet(target)) {
        std::optional<exporting::ExportedFile> file = exportedFile(*m_outcome, plan, member.format, error, fallback);
        if (!file)
            return std::nullopt;
        for (const exporting::ExportNote& note : file->notes) {
            const QString line = QString::fromStdString(exporting::exportNoteLine(note));
            if (!out.warnings.contains(line))
                out.warnings << line;
        }
        out.files.push_back({ member.path, std::move(*file) });
    }
    return out;
}

QString SearchController::defaultExportName(exporting::ExportFormat format) const
{
    return QString::fromStdString(
        exporting::defaultExportFileName(format, m_outcome ? m_outcome->settings : galvatron::SearchSettings {}));
}

} // namespace stratex::controllers
