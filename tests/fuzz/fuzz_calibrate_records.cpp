// SPDX-License-Identifier: GPL-3.0-or-later
// Run records through the calibration, as `stratex-cli calibrate --runs A --runs B --runs FUZZ`
// and the Calibrate page run it (readCalibrationRuns, calibrateCluster, calibrationSupport,
// calibratedClusterJson written by jsonText): the fuzzer's bytes are one run file beside two
// bundled H100 records, so with three runs leave-one-out runs too. A record is a .json file; an
// input that does not start like JSON is written as a .log (a Megatron-LM log, on h100-80gb, 8 GPUs
// a node). The budget is small (two parameters, four iterations) so an input takes milliseconds;
// the work-budget check runs as in the CLI. Issue 26: records with iteration_time_s 1e308 or MFU 2.0
// were calibrated; wrapped degree products were divided by (SIGFPE). A calibrated cluster that a
// strict JSON reader rejects aborts (a finding).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "core/common/json_output.h"
#include "core/common/progress.h"
#include "core/runs/calibration_runs.h"
#include "core/runs/calibration_support.h"
#include "core/runs/cluster_calibration.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;
namespace fs = std::filesystem;

namespace {

const fs::path kRecords = fs::path(STRATEX_RESOURCES_DIR) / "reference-runs";

fs::path scratchDir()
{
    static const fs::path dir = [] {
        fs::path d = fs::temp_directory_path() / ("stratex-fuzz-calibrate-" + std::to_string(::getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

bool looksLikeJson(std::string_view text)
{
    for (const char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        return c == '{' || c == '[';
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input = fuzz::text(data, size);
    const fs::path file = scratchDir() / (looksLikeJson(input) ? "fuzz.json" : "fuzz.log");
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(input.data(), std::streamsize(input.size()));
    }
    fuzz::expectValueOrError([&] {
        runs::CalibrationRunOptions runOptions;
        runOptions.cluster.gpu = "h100-80gb";
        runOptions.cluster.gpus_per_node = 8;
        const std::vector<runs::ReferenceRun> list = runs::readCalibrationRuns(
            { kRecords / "nemo2407-llama2-7b-8.json", kRecords / "megatronlm2024-1.7b-48.json", file }, runOptions);
        runs::CalibrationOptions options;
        options.parameters = { "gemm", "dp_overlap" };
        options.max_iterations = 4;
        NullProgress progress;
        const runs::ClusterCalibration calibration = runs::calibrateCluster(list, std::nullopt, options, progress);
        (void)runs::calibrationSupport(list, calibration.result.parameters);
        const std::string text = jsonText(runs::calibratedClusterJson(calibration), 2, "fuzz-cluster.json");
        // What was written must read back: jsonText escapes every string and refuses NaN/inf.
        if (!nlohmann::json::accept(text))
            std::abort();
    });
    fs::remove(file);
    return 0;
}
