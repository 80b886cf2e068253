// SPDX-License-Identifier: GPL-3.0-or-later
// PyTorch-profiler Chrome traces on any bytes: the per-rank sums, phases and intervals
// compare-run reads from them.
#include "core/runs/chrome_trace_import.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] { (void)runs::parseChromeTrace(fuzz::text(data, size), "fuzz.json"); });
    return 0;
}
