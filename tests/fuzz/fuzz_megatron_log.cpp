// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-LM training logs on any bytes, then the comparison compare-run makes of what was read
// (an A100 cluster of 8 GPUs per node), as `stratex-cli compare-run --run LOG` does.
#include "core/perf/measured/megatron_log.h"
#include "core/perf/measured/run_comparison.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const perf::measured::MeasuredRun run = perf::measured::parseMegatronLog(fuzz::text(data, size), "fuzz.log");
        perf::measured::requireCostable(run);
        // The pipeline simulation grows with micro-batches x stages; a real log's are bounded by
        // its cluster, a fuzzed one's are not.
        const perf::ParallelStrategy& s = *run.strategy;
        if (s.world() > 4096 || s.pp > 64 || s.microbatches() > 1024)
            return;
        const profile::synth::ClusterDescription cluster
            = perf::measured::resolveCluster(run, { std::string("a100-80gb"), 8 });
        (void)perf::measured::comparisonJson(
            perf::measured::compareRun(run, cluster, perf::efficiencyFor(cluster.gpu)));
    });
    return 0;
}
