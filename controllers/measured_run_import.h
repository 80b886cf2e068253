// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/runs/run_comparison.h"

#include "controllers/timeline_request.h"

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// Imports a measured run (Megatron-LM log, PyTorch-profiler traces, reference record) and costs
// it on a worker, as stratex-cli compare-run does; hands over the comparison and, when the run was
// traced, a timeline with each stage's measured lane above its predicted one.
class MeasuredRunImport : public QObject {
    Q_OBJECT
public:
    explicit MeasuredRunImport(QObject* parent = nullptr);
    ~MeasuredRunImport() override;

    // `paths`: files or directories of one run. `gpu` and `gpusPerNode` as compare-run's --gpu and
    // --gpus-per-node (a log says neither; a trace names the GPU).
    void import(const QStringList& paths, std::optional<QString> gpu, std::optional<int> gpusPerNode);

    std::shared_ptr<const runs::RunComparison> comparison() const { return m_comparison; }
    jobs::JobRunner* runner() const { return m_runner; }

Q_SIGNALS:
    // `timeline` is empty (no timeline) when no stage was traced.
    void imported(std::shared_ptr<const runs::RunComparison> comparison, controllers::TimelineRequest timeline);
    void failed(const QString& message);

private:
    std::shared_ptr<const runs::RunComparison> m_comparison;
    jobs::JobRunner* m_runner;
};

} // namespace stratex::controllers
