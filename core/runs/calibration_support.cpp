// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/calibration_support.h"

#include <algorithm>

#include "core/hardware/efficiency.h"
#include "core/runs/calibration.h"

namespace stratex::runs {

CalibrationSupport calibrationSupport(const std::vector<ReferenceRun>& runs, std::vector<std::string> parameters)
{
    if (parameters.empty())
        parameters = defaultCalibrationParameters();
    CalibrationSupport support;
    support.parameters = int(parameters.size());
    support.runs = int(runs.size());
    // As calibrate(): memory residuals enter only when a memory parameter is fitted.
    const bool memory = std::any_of(parameters.begin(), parameters.end(), [](const std::string& name) {
        const hardware::EfficiencyField* field = hardware::findEfficiencyField(name);
        const std::string key = field ? field->name : name;
        return key == "memory_reserve_gb" || key == "activation_fragmentation";
    });
    support.measurements = support.runs;
    if (memory) {
        support.measurements += int(std::count_if(
            runs.begin(), runs.end(), [](const ReferenceRun& run) { return run.peak_memory_gib.has_value(); }));
    }
    return support;
}

std::string CalibrationSupport::warning() const
{
    const std::string counts = std::to_string(parameters) + (parameters == 1 ? " parameter" : " parameters")
        + " fitted to " + std::to_string(measurements) + (measurements == 1 ? " measurement" : " measurements") + " ("
        + std::to_string(runs) + (runs == 1 ? " run" : " runs") + ")";
    const std::string bring = "Bring at least " + std::to_string(std::max(parameters + 1, held_out_runs_needed))
        + " runs of different layouts or sizes (Megatron-LM logs with their arguments, run records, or profiler "
          "traces), or fit fewer parameters.";
    if (underDetermined())
        return counts + ": under-determined; many values reproduce these runs exactly, so the error after the fit "
                        "says nothing and the calibrated cluster is not saved. "
            + bring;
    if (exactlyDetermined())
        return counts + ": exactly determined; the fit reproduces the runs by construction and nothing is left "
                        "to check it. "
            + bring;
    return {};
}

} // namespace stratex::runs
