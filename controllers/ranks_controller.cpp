// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/ranks_controller.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QTimer>

#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/export/tracer_script.h"

#include "jobs/job_runner.h"

namespace stratex::controllers {

using namespace stratex::ranks;

RanksController::RanksController(QObject* parent)
    : QObject(parent)
    , m_layoutDelay(new QTimer(this))
    , m_planningDelay(new QTimer(this))
    , m_layoutRunner(new jobs::JobRunner(this))
    , m_planningRunner(new jobs::JobRunner(this))
    , m_exportRunner(new jobs::JobRunner(this))
{
    m_layoutDelay->setSingleShot(true);
    m_layoutDelay->setInterval(kLayoutDelayMs);
    m_planningDelay->setSingleShot(true);
    m_planningDelay->setInterval(kPlanningDelayMs);
    connect(m_layoutDelay, &QTimer::timeout, this, &RanksController::layOut);
    connect(m_planningDelay, &QTimer::timeout, this, &RanksController::plan);
    connect(m_layoutRunner, &jobs::JobRunner::failed, this, [this](const QString& message) {
        m_view.reset();
        Q_EMIT layoutFailed(message);
    });
    connect(m_planningRunner, &jobs::JobRunner::failed, this, &RanksController::tracerPlanningFailed);
    connect(m_exportRunner, &jobs::JobRunner::failed, this, &RanksController::scriptExportFailed);
}

RanksController::~RanksController() = default;

void RanksController::setLayout(const ParallelConfig& layout)
{
    m_layout = layout;
    m_layoutDelay->start();
}

void RanksController::layOut()
{
    const ParallelConfig config = m_layout;
    m_layoutRunner->start<std::shared_ptr<const RankGridView>>(
        tr("Laying out %1 ranks").arg(config.world),
        [config](ProgressSink& progress) {
            progress.report(0.0, "laying out ranks");
            auto view = std::make_shared<const RankGridView>(buildRankGridView(config, TraceSelection::Dense));
            progress.throwIfCancelled();
            progress.report(1.0, "laid out ranks");
            return std::shared_ptr<const RankGridView>(std::move(view));
        },
        [this](std::shared_ptr<const RankGridView> view) {
            m_view = view;
            Q_EMIT viewReady(std::move(view));
        });
    // The tracer plans with the layout's cp, ep, etp, order and GPUs per node.
    m_planningDelay->start();
}

void RanksController::setBatchConfigs(std::vector<BatchConfig> configs)
{
    m_configs = std::move(configs);
    m_planningDelay->start();
}

bool RanksController::readBatchFile(const QString& path, std::vector<BatchConfig>* configs, QString* error)
{
    std::vector<BatchConfig> read;
    try {
        read = loadBatchConfigs(path.toStdString());
    } catch (const Error& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    // One bad line among good ones is a config whose plan says so; a file in which no line reads
    // (prose, a log, another kind of .txt) is not a batch list, and must not replace the user's.
    const auto readable = std::find_if(
        read.begin(), read.end(), [](const BatchConfig& config) { return config.parseError.empty(); });
    if (readable == read.end()) {
        if (error) {
            const BatchConfig& first = read.front();
            *error = tr("%1: not a tracer batch list: no line reads as \"WORLD_SIZE PP TP\" (line %2: %3)")
                         .arg(path)
                         .arg(first.lineNumber)
                         .arg(QString::fromStdString(first.parseError));
        }
        return false;
    }
    if (configs)
        *configs = std::move(read);
    return true;
}

bool RanksController::loadBatchFile(const QString& path, QString* error)
{
    std::vector<BatchConfig> configs;
    if (!readBatchFile(path, &configs, error))
        return false;
    setLoadedBatchConfigs(path, std::move(configs));
    return true;
}

void RanksController::setLoadedBatchConfigs(const QString& path, std::vector<BatchConfig> configs)
{
    setBatchConfigs(std::move(configs));
    Q_EMIT batchConfigsLoaded(path);
}

void RanksController::setTracerSettings(const TracerSettings& settings)
{
    m_tracer = settings;
    m_planningDelay->start();
}

TracerSettings RanksController::tracerSettings() const
{
    TracerSettings settings = m_tracer;
    settings.cp = m_layout.cp;
    settings.ep = m_layout.ep;
    settings.etp = m_layout.etp;
    settings.order = m_layout.order;
    settings.gpusPerNode = m_layout.gpusPerNode;
    return settings;
}

bool RanksController::hasPendingWork() const
{
    return m_layoutDelay->isActive() || m_planningDelay->isActive();
}

void RanksController::plan()
{
    std::vector<BatchConfig> configs = m_configs;
    const TracerSettings settings = tracerSettings();
    m_planningRunner->start<std::vector<TraceConfigPlan>>(
        tr("Planning tracer ranks"),
        [configs = std::move(configs), settings](ProgressSink& progress) {
            // No configs: the table stays empty and the page says the script's default (8192 2 2).
            return configs.empty() ? std::vector<TraceConfigPlan> {} : planTracer(configs, settings, progress);
        },
        [this](std::vector<TraceConfigPlan> plans) {
            if (plans.size() != m_configs.size())
                return; // planned for a list that has changed since; a newer plan is on its way
            m_plans = std::move(plans);
            Q_EMIT tracerPlansReady();
        });
}

void RanksController::exportScript(const QString& path, const QString& commandTemplate)
{
    const std::vector<BatchConfig> configs = m_configs;
    const TracerSettings settings = tracerSettings();
    const std::string command = commandTemplate.toStdString();
    const std::string file = path.toStdString();
    m_exportRunner->start<QString>(
        tr("Writing tracer script"),
        [configs, settings, command, file](ProgressSink&) {
            // Planned again here so the script matches the table exactly, including an empty
            // list's fallback to the default config.
            const std::vector<TraceConfigPlan> plans = planTracer(configs, settings);
            exporting::TracerScriptOptions options;
            options.commandTemplate = command;
            writeFileAtomically(file, exporting::tracerScript(plans, settings, options), FileMode::Executable);
            return QString::fromStdString(file);
        },
        [this](const QString& written) { Q_EMIT scriptExported(written); });
}

} // namespace stratex::controllers
