// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/measured_run_import.h"

#include <QFileInfo>

#include "core/perf/measured/run_import.h"
#include "core/perf/measured/run_timeline.h"

#include "jobs/job_runner.h"

namespace stratex::controllers {

namespace {

struct ImportResult {
    std::shared_ptr<const perf::measured::RunComparison> comparison;
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
    perf::measured::ClusterChoice choice;
    if (gpu)
        choice.gpu = gpu->toStdString();
    choice.gpus_per_node = gpusPerNode;
    const QString name = paths.isEmpty() ? QString() : QFileInfo(paths.front()).fileName();
    m_runner->start<ImportResult>(
        tr("Importing %1").arg(name),
        [files = std::move(files), choice, name](ProgressSink& progress) {
            const perf::measured::MeasuredRun run = perf::measured::importRuns(files);
            progress.throwIfCancelled();
            perf::measured::requireCostable(run);
            const profile::synth::ClusterDescription cluster = perf::measured::resolveCluster(run, choice);
            auto comparison = std::make_shared<perf::measured::RunComparison>(
                perf::measured::compareRun(run, cluster, perf::efficiencyFor(cluster)));
            progress.throwIfCancelled();
            perf::measured::ComparisonTimeline lanes = perf::measured::comparisonTimeline(*comparison);
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
