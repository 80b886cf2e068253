// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-LM training logs on any bytes, then the comparison compare-run makes of what was read
// (an A100 cluster of 8 GPUs per node), as `stratex-cli compare-run --run LOG` does.
#include "core/runs/megatron_log.h"
#include "core/runs/run_comparison.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const runs::MeasuredRun run = runs::parseMegatronLog(fuzz::text(data, size), "fuzz.log");
        runs::requireCostable(run);
        // The pipeline simulation grows with micro-batches x stages; a real log's are bounded by
        // its cluster, a fuzzed one's are not.
        const megatron::ParallelStrategy& s = *run.strategy;
        if (s.world() > 4096 || s.pp > 64 || s.microbatches() > 1024)
            return;
        const hardware::ClusterDescription cluster
            = runs::resolveCluster(run, { std::string("a100-80gb"), 8 });
        (void)runs::comparisonJson(
            runs::compareRun(run, cluster, hardware::efficiencyFor(cluster.gpu)));
    });
    return 0;
}
