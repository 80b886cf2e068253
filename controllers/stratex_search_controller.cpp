// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/stratex_search_controller.h"

#include <chrono>

#include <QFileInfo>
#include <QLocale>

#include "core/common/error.h"
#include "core/model/model_presets.h"
#include "core/perf/plan_file.h"
#include "core/perf/strategy_ranks.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/search/model_settings.h"
#include "core/search/parallel_for.h"
#include "core/sim/simulator.h"

#include "controllers/save_text_file.h"
#include "jobs/job_runner.h"

namespace stratex::controllers {

namespace {

// The preset a model name names, if any ("llama2-7b").
std::optional<model::ModelDescription> presetNamed(const std::string& name)
{
    for (const model::ModelDescription& preset : model::modelPresets()) {
        if (preset.name == name)
            return preset;
    }
    return std::nullopt;
}

// The shape flags the form shows with the stratex model: the synthesized model's other fields stay
// the set's (the form's hidden shape fields are Galvatron's search settings).
constexpr std::string_view kShapeFlags[] = { "seq-length" };

} // namespace

perf::StrategySearchRequest resolveStratexRequest(const StratexSearchInputs& inputs)
{
    std::optional<profile::synth::SynthesisRecord> record;
    if (!inputs.profiles_dir.empty())
        record = profile::synth::readSynthesisRecord(inputs.profiles_dir);
    if (!inputs.profiles_dir.empty() && !record)
        throw Error(inputs.profiles_dir.string()
            + ": measured profiles, which the stratex cost model does not read: choose the cost model galvatron, "
              "or a profile set made by Synthesize… (stratex-cli profile synth)");

    const search::SearchSettings& s = inputs.settings;
    perf::StrategySearchRequest request;
    if (record) {
        settings::SettingNames shape;
        for (std::string_view flag : kShapeFlags) {
            if (inputs.given.contains(flag))
                shape.insert(std::string(flag));
        }
        const search::ResolvedModel resolved
            = search::resolveModel(record->model, "the synthesized profiles' model", s, shape, {}, {});
        if (!resolved.model)
            throw Error(search::missingModelMessage("the stratex cost model", "the form", resolved.missing));
        request.model = *resolved.model;
        request.cluster = record->cluster;
    } else {
        std::optional<model::ModelDescription> preset;
        if (inputs.given.contains("model-name"))
            preset = presetNamed(s.model.name);
        if (!preset)
            throw Error("the stratex cost model needs a model: choose a profile set made by Synthesize… (stratex-cli "
                        "profile synth), or name a model preset (e.g. llama2-7b) in the model name field");
        request.model = *preset;
        if (inputs.given.contains("seq-length"))
            request.model.seq_length = s.model.seq_length;
        if (inputs.stratex.gpu.empty())
            throw Error("the stratex cost model needs the GPU: name a GPU preset (e.g. a100-80gb) in the GPU field, "
                        "or choose a profile set made by Synthesize…");
    }
    if (!inputs.stratex.gpu.empty()) {
        const profile::synth::GpuDescription gpu = profile::synth::gpuPreset(inputs.stratex.gpu);
        if (gpu.name != request.cluster.gpu.name)
            request.cluster.efficiency.reset(); // a calibration holds for the GPU it was measured on
        request.cluster.gpu = gpu;
    }
    if (!record || inputs.given.contains("num-nodes"))
        request.cluster.num_nodes = s.num_nodes;
    if (!record || inputs.given.contains("num-gpus-per-node"))
        request.cluster.gpus_per_node = s.num_gpus_per_node;
    request.cluster.validate();
    request.efficiency = perf::efficiencyFor(request.cluster); // a calibrated cluster's, else the preset's
    request.memory_limit_mb = inputs.given.contains("memory-constraint") ? s.memory_constraint_gb * 1e3
                                                                         : request.cluster.gpu.memory_gb * 1e3;
    request.global_batch_size = inputs.stratex.global_batch_size;
    if (request.global_batch_size <= 0 && s.settle_bsz > 0)
        request.global_batch_size = s.settle_bsz;
    if (request.global_batch_size <= 0)
        throw Error("the stratex cost model searches one global batch: give the global batch (Cost model group)");
    request.space = inputs.stratex.resolvedSpace();
    request.top = inputs.top;
    request.threads = inputs.threads;
    return request;
}

ranks::ParallelConfig stratexRankLayout(const perf::ParallelStrategy& s, int gpusPerNode)
{
    return perf::rankConfig(s, gpusPerNode);
}

QString stratexPlanName(const perf::Estimate& plan)
{
    return QObject::tr("%1 — %2 s/iteration")
        .arg(QString::fromStdString(plan.strategy.notation()), QLocale::c().toString(plan.iteration_ms / 1e3, 'f', 3));
}

TimelineRequest simulateStratexTimeline(
    const model::ModelDescription& model, const profile::synth::ClusterDescription& cluster, const perf::Estimate& plan)
{
    const perf::HardwareModel hw(cluster, perf::efficiencyFor(cluster));
    perf::PipelineSimulation pipeline = perf::pipelineSimulation(model, plan.strategy, hw);
    // What a stage holds from the start: everything but the activations, on its first chunk.
    const int p = plan.strategy.pp;
    pipeline.input.model_state_mb_per_layer.assign(pipeline.input.device_assignment.size(), 0.0);
    for (const perf::StageEstimate& stage : plan.stages) {
        if (stage.stage < p && std::size_t(stage.stage) < pipeline.input.model_state_mb_per_layer.size()) {
            const perf::StageMemory& m = stage.memory;
            pipeline.input.model_state_mb_per_layer[std::size_t(stage.stage)]
                = m.weights_mb + m.gradients_mb + m.optimizer_mb + m.logits_mb + m.reserve_mb;
        }
    }
    sim::SimulationResult simulated = sim::simulate(pipeline.input, pipeline.schedule);
    return { QObject::tr("stratex plan: %1").arg(stratexPlanName(plan)),
        std::make_shared<const sim::Timeline>(std::move(simulated.timeline)), plan.memory_limit_mb };
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
            const perf::StrategySearchRequest request = resolveStratexRequest(inputs);
            const auto start = std::chrono::steady_clock::now();
            auto outcome = std::make_shared<StratexSearchOutcome>();
            {
                SubProgress searching(progress, 0.0, 0.9);
                outcome->result = perf::searchStrategies(request, searching);
            }
            outcome->search_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            // How far the ranking holds when the model is off, as the CLI's search reports it.
            SubProgress whatIfs(progress, 0.9, 1.0);
            outcome->robustness
                = perf::rankingRobustness(request.model, perf::HardwareModel(request.cluster, request.efficiency),
                    outcome->result.best, request.memory_limit_mb, whatIfs);
            outcome->threads = search::effectiveThreads(request.threads);
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

void StratexSearchController::cancel()
{
    m_searchRunner->cancel();
}

bool StratexSearchController::openPlan(const QString& path, const StratexSearchInputs& fallback, QString* error)
{
    model::ModelDescription model;
    profile::synth::ClusterDescription cluster;
    perf::ParallelStrategy strategy;
    std::vector<std::string> assumptions;
    try {
        const perf::PartialPlanFile plan = perf::PartialPlanFile::load(path.toStdString());
        if (plan.model() && plan.cluster()) {
            model = *plan.model();
            cluster = *plan.cluster();
        } else {
            perf::StrategySearchRequest resolved;
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
            const perf::HardwareModel hw(cluster, perf::efficiencyFor(cluster));
            auto outcome = std::make_shared<StratexSearchOutcome>();
            outcome->source = path;
            outcome->plan_file = true;
            outcome->model = model;
            outcome->cluster = cluster;
            outcome->global_batch_size = strategy.global_batch_size;
            const perf::Estimate e = perf::estimate(model, strategy, hw);
            outcome->memory_limit_mb = e.memory_limit_mb;
            if (!e.problems.empty()) {
                std::string problems;
                for (const std::string& problem : e.problems)
                    problems += (problems.empty() ? "" : "; ") + problem;
                throw Error(path.toStdString() + ": Megatron-LM would not start this strategy: " + problems);
            }
            outcome->result.best = { e };
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
            const perf::Estimate& best = searched->result.best.front();
            return Views { stratexRankLayout(best.strategy, searched->cluster.gpus_per_node),
                simulateStratexTimeline(searched->model, searched->cluster, best) };
        },
        [this](Views views) { Q_EMIT bestPlanViewsReady(views.first, views.second); });
}

std::optional<ranks::ParallelConfig> StratexSearchController::rankLayout(const perf::Estimate& plan) const
{
    if (!m_outcome)
        return std::nullopt;
    return stratexRankLayout(plan.strategy, m_outcome->cluster.gpus_per_node);
}

void StratexSearchController::simulatePlan(const perf::Estimate& plan)
{
    if (!m_outcome)
        return;
    const std::shared_ptr<const StratexSearchOutcome> outcome = m_outcome;
    m_simulateRunner->start<TimelineRequest>(
        tr("Simulating the plan's pipeline"),
        [outcome, plan](ProgressSink&) { return simulateStratexTimeline(outcome->model, outcome->cluster, plan); },
        [this](TimelineRequest request) { Q_EMIT timelineReady(request); });
}

bool StratexSearchController::savePlan(const perf::Estimate& plan, const QString& path, QString* error) const
{
    if (!m_outcome) {
        if (error)
            *error = tr("no plan: run the search first");
        return false;
    }
    return saveTextFile(path, perf::planFileJson(m_outcome->model, m_outcome->cluster, plan).dump(2) + "\n", error);
}

} // namespace stratex::controllers
