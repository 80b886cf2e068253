// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/calibration_controller.h"

#include <string_view>
#include <utility>

#include "core/common/error.h"
#include "core/common/json_output.h"
#include "core/hardware/cluster_json.h"
#include "core/runs/calibration_runs.h"
#include "core/runs/calibration_support.h"

#include "controllers/save_text_file.h"
#include "jobs/job_runner.h"

namespace stratex::controllers {

namespace {

// Core's reading errors name stratex-cli's options ("the GPU model (--gpu PRESET)"); the page's
// user has the form's fields instead (issue 24, finding 10).
std::string withFormFieldNames(std::string message)
{
    static const std::pair<std::string_view, std::string_view> kFields[] = {
        { "--gpus-per-node N", "the field \"GPUs per node\"" },
        { "--gpu PRESET", "the field \"GPU (logs, traces)\"" },
        { "--warmup", "the field \"Warm-up iterations\"" },
        { "--cluster", "the field \"Start from\"" },
    };
    for (const auto& [flag, field] : kFields) {
        for (std::size_t at = message.find(flag); at != std::string::npos; at = message.find(flag, at + field.size()))
            message.replace(at, flag.size(), field);
    }
    return message;
}

CalibrationOutcome readAndCalibrate(const CalibrationInputs& inputs, ProgressSink& progress);

} // namespace

CalibrationOutcome calibrateFromFiles(const CalibrationInputs& inputs, ProgressSink& progress)
{
    try {
        return readAndCalibrate(inputs, progress);
    } catch (const WorkBudgetExceeded&) {
        throw; // the page asks "Run anyway?" with its estimate (run() catches it)
    } catch (const Error& error) {
        throw Error(withFormFieldNames(error.what()));
    }
}

namespace {

CalibrationOutcome readAndCalibrate(const CalibrationInputs& inputs, ProgressSink& progress)
{
    progress.report(0, "reading the runs");
    runs::CalibrationRunOptions options;
    options.log.warmup_iterations = inputs.warmup_iterations;
    if (!inputs.gpu.isEmpty())
        options.cluster.gpu = inputs.gpu.toStdString();
    options.cluster.gpus_per_node = inputs.gpus_per_node;
    std::vector<std::filesystem::path> paths;
    for (const QString& path : inputs.run_paths)
        paths.emplace_back(path.toStdString());
    CalibrationOutcome outcome;
    outcome.runs = runs::readCalibrationRuns(paths, options);
    std::optional<hardware::ClusterDescription> start;
    if (!inputs.cluster_file.isEmpty())
        start = hardware::readClusterFile(inputs.cluster_file.toStdString());
    runs::CalibrationOptions fit;
    fit.parameters = inputs.parameters;
    fit.lift_work_budget = inputs.lift_work_budget;
    // Reading is quick next to the fits: they take the rest of the bar.
    SubProgress fitting(progress, 0.05, 1.0);
    outcome.calibration = runs::calibrateCluster(outcome.runs, start, fit, fitting);
    outcome.support = runs::calibrationSupport(outcome.runs, outcome.calibration.result.parameters);
    return outcome;
}

} // namespace

CalibrationController::CalibrationController(QObject* parent)
    : QObject(parent)
    , m_runner(new jobs::JobRunner(this))
{
    connect(m_runner, &jobs::JobRunner::failed, this, &CalibrationController::calibrationFailed);
    connect(m_runner, &jobs::JobRunner::cancelled, this, &CalibrationController::calibrationCancelled);
}

CalibrationController::~CalibrationController() = default;

namespace {

// A calibration, or the estimate it was refused for (calibrateCluster's work budget).
struct CalibrationJobResult {
    std::shared_ptr<const CalibrationOutcome> outcome;
    std::optional<WorkEstimate> beyond_budget;
};

} // namespace

void CalibrationController::run(CalibrationInputs inputs)
{
    m_runner->start<CalibrationJobResult>(
        tr("Calibrating the cluster"),
        [inputs = std::move(inputs)](ProgressSink& progress) {
            CalibrationJobResult result;
            try {
                result.outcome = std::make_shared<const CalibrationOutcome>(calibrateFromFiles(inputs, progress));
            } catch (const WorkBudgetExceeded& beyond) {
                result.beyond_budget = beyond.estimate();
            }
            return result;
        },
        [this](CalibrationJobResult result) {
            if (result.beyond_budget) {
                // The last outcome stays; the page asks and may run again lifted.
                Q_EMIT workBudgetExceeded(*result.beyond_budget);
                return;
            }
            m_outcome = std::move(result.outcome);
            Q_EMIT calibrationFinished(m_outcome);
        });
}

void CalibrationController::cancel()
{
    m_runner->cancel();
}

bool CalibrationController::saveCluster(const QString& path, QString* error) const
{
    if (!m_outcome) {
        if (error)
            *error = tr("nothing calibrated yet: press Calibrate first");
        return false;
    }
    // As stratex-cli calibrate: an under-determined fit is no calibration to start a plan from.
    if (m_outcome->support.underDetermined()) {
        if (error)
            *error = QString::fromStdString(m_outcome->support.warning());
        return false;
    }
    std::string text;
    try {
        text = jsonText(runs::calibratedClusterJson(m_outcome->calibration), 2, path.toStdString()) + "\n";
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromStdString(failure.what());
        return false;
    }
    return saveTextFile(path, text, error);
}

} // namespace stratex::controllers
