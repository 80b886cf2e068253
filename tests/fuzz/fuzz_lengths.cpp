// SPDX-License-Identifier: GPL-3.0-or-later
// Sample-lengths files (text lines or JSON) and the --synthetic spec on any bytes.
#include "core/planner/microbatch_lengths.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = fuzz::text(data, size);
    fuzz::expectValueOrError([&] { (void)planner::parseSampleLengths(text, "fuzz.txt"); });
    if (size < 256) {
        fuzz::expectValueOrError([&] {
            planner::SyntheticLengthSpec spec = planner::parseSyntheticLengthSpec(text);
            spec.count = std::min(spec.count, 4096); // the generator's cost is the count, already bounded
            (void)planner::generateSyntheticSamples(spec, size % 2 == 0);
        });
    }
    return 0;
}
