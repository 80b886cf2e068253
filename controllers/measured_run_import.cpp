// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/measured_run_import.h"

#include <QFileInfo>

#include "core/runs/run_import.h"
#include "core/runs/run_timeline.h"

#include "jobs/job_runner.h"

namespace stratex::controllers {

namespace {

struct ImportResult {
    std::shared_ptr<const runs::RunComparison> comparison;
    TimelineRequest timeline;
};

} // namespace

MeasuredRunImport::MeasuredRunImport(QObject* parent)
    : QObject(parent)
    , m_runner(new jobs::JobRunner(this))
{
    connect(m_runner, &jobs::JobRunner::failed, this, &MeasuredRunImport::failed);
}

MeasuredRunImport::~MeasuredRunImport() = default;

void MeasuredRunImport::import(const QStringList& paths, std::optional<QString> gpu, std::optional<int> gpusPerNode)
{
    std::vector<std::filesystem::path> files;
    for (const QString& path : paths)
        files.emplace_back(path.toStdString());
    runs::ClusterChoice choice;
    if (gpu)
        choice.gpu = gpu->toStdString();
    choice.gpus_per_node = gpusPerNode;
    const QString name = paths.isEmpty() ? QString() : QFileInfo(paths.front()).fileName();
    m_runner->start<ImportResult>(
        tr("Importing %1").arg(name),
        [files = std::move(files), choice, name](ProgressSink& progress) {
            const runs::MeasuredRun run = runs::importRuns(files);
            progress.throwIfCancelled();
            runs::requireCostable(run);
            const hardware::ClusterDescription cluster = runs::resolveCluster(run, choice);
            auto comparison = std::make_shared<runs::RunComparison>(
                runs::compareRun(run, cluster, hardware::efficiencyFor(cluster)));
            progress.throwIfCancelled();
            runs::ComparisonTimeline lanes = runs::comparisonTimeline(*comparison);
            ImportResult result;
            result.comparison = std::move(comparison);
            if (!lanes.timeline.devices.empty()) {
                result.timeline.name = QObject::tr("%1: measured over predicted").arg(name);
                result.timeline.timeline = std::make_shared<const sim::Timeline>(std::move(lanes.timeline));
                for (const std::string& label : lanes.labels)
                    result.timeline.deviceLabels << QString::fromStdString(label);
            }
            return result;
        },
        [this](ImportResult result) {
            m_comparison = result.comparison;
            Q_EMIT imported(std::move(result.comparison), std::move(result.timeline));
        });
}

} // namespace stratex::controllers
