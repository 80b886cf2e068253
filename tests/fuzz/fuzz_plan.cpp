// SPDX-License-Identifier: GPL-3.0-or-later
// Load-then-plan: a DynaPipe cost model and a lengths file from the fuzzer's bytes (split at the
// first NUL: cost model JSON, then lengths text or JSON), planned in fast mode as `stratex-cli plan`
// plans them, on a small bounded placement (2 stages of 2 layers, 16 GB). At most 64 samples are
// planned, so an input finishes in well under a second; what is fuzzed is the cost model's values
// and the lengths reaching the micro-batch DP, the schedules and the simulator.
#include <algorithm>
#include <cstring>

#include "core/common/json_reader.h"
#include "core/common/progress.h"
#include "core/planner/dynapipe_cost_model.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input = fuzz::text(data, size);
    const std::size_t split = input.find('\0');
    if (split == std::string_view::npos)
        return 0;
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(input.substr(0, split), "cost-model.json");
        const planner::DynapipeCostModel model = planner::DynapipeCostModel::fromJson(document.root());
        std::vector<planner::Sample> samples = planner::parseSampleLengths(input.substr(split + 1), "lengths.txt");
        samples.resize(std::min<std::size_t>(samples.size(), 64));
        const std::vector<int> tps = model.tensorParallelSizes();
        planner::PlannerConfig config;
        config.num_stages = 2;
        config.layers_per_stage = 2;
        config.device_memory_mb = 16000;
        config.mode = planner::PlannerMode::Fast;
        config.tp = tps.empty() ? 1 : tps.front();
        NullProgress progress;
        (void)planner::planGlobalBatch(samples, model, config, progress);
    });
    return 0;
}
