// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/common/work_budget.h"
#include "core/runs/calibration_support.h"
#include "core/runs/cluster_calibration.h"
#include "core/runs/reference_run.h"

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// What the Calibrate page asks for: stratex-cli calibrate's --runs, --cluster, --gpu,
// --gpus-per-node, --warmup and --fit.
struct CalibrationInputs {
    QStringList run_paths; // run records (or folders of them), Megatron-LM logs, Chrome traces
    QString cluster_file; // the cluster to start from; empty: the first run's
    QString gpu; // logs and traces do not name it; empty: a trace's device name
    std::optional<int> gpus_per_node;
    int warmup_iterations = 2;
    std::vector<std::string> parameters; // empty: runs::defaultCalibrationParameters()
    // Fit beyond the work budget (runs::requireBoundedCalibration): the page's "Run anyway".
    bool lift_work_budget = false;
};

struct CalibrationOutcome {
    std::vector<runs::ReferenceRun> runs;
    runs::ClusterCalibration calibration;
    // Whether the runs support the fit (runs::calibrationSupport): saving needs it.
    runs::CalibrationSupport support;
};

// The Calibrate page's model: reads the runs and fits the cluster on a worker, exactly as
// stratex-cli calibrate does (the same core functions), keeps the outcome and writes the
// calibrated cluster file the CLI writes.
class CalibrationController : public QObject {
    Q_OBJECT
public:
    explicit CalibrationController(QObject* parent = nullptr);
    ~CalibrationController() override;

    // Beyond the work budget (as stratex-cli calibrate refuses) nothing is fitted and
    // workBudgetExceeded is emitted: the page asks and runs again with lift_work_budget.
    void run(CalibrationInputs inputs);
    void cancel();
    std::shared_ptr<const CalibrationOutcome> outcome() const { return m_outcome; }
    // The calibrated cluster as stratex-cli calibrate --out writes it, atomically; refused (false,
    // `error` saying why and what to bring) when the fit is under-determined, as the CLI refuses.
    bool saveCluster(const QString& path, QString* error) const;

    jobs::JobRunner* runner() const { return m_runner; }

Q_SIGNALS:
    void calibrationFinished(std::shared_ptr<const stratex::controllers::CalibrationOutcome> outcome);
    void calibrationFailed(const QString& message);
    void calibrationCancelled();
    void workBudgetExceeded(const stratex::WorkEstimate& estimate);

private:
    jobs::JobRunner* m_runner;
    std::shared_ptr<const CalibrationOutcome> m_outcome;
};

// Reads the runs and calibrates, on the calling thread (the controller's worker; tests). Its
// errors name the page's fields where core names stratex-cli's options.
CalibrationOutcome calibrateFromFiles(const CalibrationInputs& inputs, ProgressSink& progress);

} // namespace stratex::controllers
