// SPDX-License-Identifier: GPL-3.0-or-later
// Tracer batch files on any bytes: the text check, the parser, and the tracer plan of what they
// hold (rank grids, process groups, selected ranks), as `stratex-cli trace-ranks --batch-file`.
#include "core/common/text_check.h"
#include "core/ranks/batch_config.h"
#include "core/ranks/tracer_plan.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = fuzz::text(data, size);
    if (findUnprintableText(text))
        return 0; // loadBatchConfigs refuses it with file and line
    fuzz::expectValueOrError([&] {
        std::vector<ranks::BatchConfig> configs = ranks::parseBatchConfigs(text);
        // Rank grids are per rank: keep each world small enough for a fuzzing iteration.
        for (ranks::BatchConfig& config : configs)
            config.world = std::min(config.world, 4096);
        (void)ranks::planTracer(configs, ranks::TracerSettings {});
    });
    return 0;
}
