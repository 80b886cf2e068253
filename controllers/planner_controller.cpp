// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/planner_controller.h"

#include <algorithm>

#include "controllers/save_text_file.h"
#include "core/planner/planner_work.h"
#include "jobs/job_runner.h"

namespace stratex::controllers {

using namespace stratex::planner;

namespace {

// A plan pair and the name of the cost model it was planned with.
struct PlannedPair {
    std::shared_ptr<const ModePair> plans;
    QString costModelName;
    // Set instead of plans when the batch is beyond the work budget (planner_work.h): the
    // micro-batching is done, the scheduling not begun.
    std::optional<WorkEstimate> beyondBudget;
};

} // namespace

PlannerController::PlannerController(QObject* parent)
    : QObject(parent)
    , m_planRunner(new jobs::JobRunner(this))
    , m_compareRunner(new jobs::JobRunner(this))
{
    for (jobs::JobRunner* runner : { m_planRunner, m_compareRunner })
        connect(runner, &jobs::JobRunner::failed, this, &PlannerController::failed);
}

PlannerController::~PlannerController() = default;

QList<jobs::JobRunner*> PlannerController::jobRunners() const
{
    return { m_planRunner, m_compareRunner };
}

void PlannerController::setCostModelFile(const QString& path)
{
    m_inputs.useSearchCostModel = false;
    m_inputs.costModelPath = path;
}

void PlannerController::useSearchCostModel()
{
    m_inputs.useSearchCostModel = true;
}

void PlannerController::setSyntheticLengths(const SyntheticLengthSpec& spec)
{
    m_inputs.syntheticLengths = true;
    m_inputs.synthetic = spec;
}

void PlannerController::setLengthsFile(const QString& path)
{
    m_inputs.syntheticLengths = false;
    m_inputs.lengthsFile = path;
}

void PlannerController::setConfig(const PlannerConfig& config)
{
    m_inputs.config = config;
    if (m_autoThreshold.measured)
        m_inputs.config.auto_fast_above_microbatches = m_autoThreshold.fast_above_microbatches;
}

ModeRecommendation PlannerController::recommendation() const
{
    return m_plans ? recommendMode(*m_plans) : ModeRecommendation {};
}

void PlannerController::setCompareBatches(std::vector<int> batches)
{
    m_inputs.compareBatches = std::move(batches);
}

void PlannerController::setCompareSeeds(int seeds)
{
    m_inputs.compareSeeds = std::max(1, seeds);
}

void PlannerController::setSearchCostModel(std::shared_ptr<const LayerCostModel> model, const QString& description)
{
    m_inputs.searchCostModel = std::move(model);
    Q_EMIT searchCostModelOffered(description);
}

std::optional<PlannerInputs> PlannerController::inputsForJob()
{
    const QString problem = plannerInputsProblem(m_inputs);
    if (!problem.isEmpty()) {
        Q_EMIT failed(problem);
        return std::nullopt;
    }
    return m_inputs;
}

void PlannerController::planBatch(bool liftWorkBudget)
{
    std::optional<PlannerInputs> inputs = inputsForJob();
    if (!inputs)
        return;
    inputs->config.lift_work_budget = liftWorkBudget;
    const double memoryLimitMb = inputs->config.device_memory_mb;
    m_planRunner->start<PlannedPair>(
        tr("Planning the batch (normal and fast)"),
        [inputs = *inputs](ProgressSink& progress) {
            const LoadedPlannerInputs loaded = loadPlannerInputs(inputs);
            PlannedPair planned;
            try {
                planned.plans = std::make_shared<const ModePair>(
                    planBothModes(loaded.samples, *loaded.model, inputs.config, progress));
            } catch (const WorkBudgetExceeded& beyond) {
                planned.beyondBudget = beyond.estimate();
            }
            planned.costModelName = QString::fromStdString(loaded.model->name());
            return planned;
        },
        [this, memoryLimitMb](PlannedPair planned) {
            if (planned.beyondBudget) {
                // The last plans stay as they were; the page asks and may plan again lifted.
                Q_EMIT workBudgetExceeded(*planned.beyondBudget);
                return;
            }
            m_plans = std::move(planned.plans);
            m_plansCostModelName = planned.costModelName;
            m_plansMemoryLimitMb = memoryLimitMb;
            Q_EMIT plansReady(m_plans, m_plansCostModelName);
            Q_EMIT selectedPlanChanged();
        });
}

void PlannerController::compareModes(bool liftWorkBudget)
{
    std::optional<PlannerInputs> inputs = inputsForJob();
    if (!inputs)
        return;
    if (inputs->compareBatches.empty()) {
        Q_EMIT failed(tr("compare batches: give at least one global batch, e.g. 16,32,64"));
        return;
    }
    // The comparison's estimate needs no file read: asked before the job (the CLI refuses it).
    inputs->config.lift_work_budget = liftWorkBudget;
    if (const WorkEstimate estimate
        = estimatePlanCompareWork(inputs->compareBatches, inputs->compareSeeds, inputs->config);
        estimate.exceedsBudget() && !liftWorkBudget) {
        Q_EMIT compareWorkBudgetExceeded(estimate);
        return;
    }
    m_compareRunner->start<std::vector<PlanCompareRow>>(
        tr("Comparing fast and normal mode"),
        [inputs = std::move(*inputs)](ProgressSink& progress) {
            const LoadedPlannerInputs loaded = loadPlannerInputs(inputs);
            return comparePlannerModes(
                loaded.samples, inputs.compareBatches, *loaded.model, inputs.config, progress, inputs.compareSeeds);
        },
        [this](std::vector<PlanCompareRow> rows) {
            m_compareRows = std::move(rows);
            m_autoThreshold = planner::autoThreshold(m_compareRows);
            if (m_autoThreshold.measured)
                m_inputs.config.auto_fast_above_microbatches = m_autoThreshold.fast_above_microbatches;
            Q_EMIT comparisonReady(m_compareRows);
        });
}

void PlannerController::openInTimeline()
{
    if (!m_plans)
        return;
    TimelineRequests requests;
    for (const auto& [label, plan] :
        { std::pair { tr("normal"), &m_plans->normal }, std::pair { tr("fast"), &m_plans->fast } }) {
        if (!plan->feasible)
            continue;
        // With several data-parallel groups, the slowest: it sets the plan's makespan.
        const GroupPlan& group = *std::max_element(plan->groups.begin(), plan->groups.end(),
            [](const GroupPlan& a, const GroupPlan& b) { return a.makespan_ms < b.makespan_ms; });
        const QString groupText = plan->groups.size() > 1
            ? tr(", data-parallel group %1 of %2").arg(group.dp_group).arg(plan->groups.size())
            : QString();
        // Aliasing the pair: the timeline stays alive with it, without a copy.
        requests.push_back({ tr("planner %1: %2, %3 micro-batches%4")
                                 .arg(label, QString::fromUtf8(sim::scheduleName(group.schedule).data()))
                                 .arg(group.microbatches.size())
                                 .arg(groupText),
            std::shared_ptr<const sim::Timeline>(m_plans, &group.simulation.timeline), m_plansMemoryLimitMb });
    }
    Q_EMIT timelinesRequested(requests);
}

bool PlannerController::exportCompareCsv(const QString& path, QString* error) const
{
    const auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (m_compareRows.empty())
        return fail(tr("no comparison to export: run Compare modes first"));
    return saveTextFile(path, planCompareCsv(m_compareRows), error);
}

void PlannerController::selectMode(PlannerMode mode)
{
    if (mode == m_selectedMode)
        return;
    m_selectedMode = mode;
    Q_EMIT selectedPlanChanged();
}

const PlanResult* PlannerController::selectedPlan() const
{
    if (!m_plans)
        return nullptr;
    return m_selectedMode == PlannerMode::Fast ? &m_plans->fast : &m_plans->normal;
}

} // namespace stratex::controllers
