// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the memory model's suites share (tst_memory_ledger, tst_framework_memory,
// tst_torchtitan_memory, tst_device_memory): a relative comparison and the Timeline curve's maximum.
#include <algorithm>
#include <cmath>

#include "core/sim/simulator.h"
#include "support/h100_cluster.h"

namespace stratex::test {

inline bool agree(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

inline double curveMaxMb(const sim::DeviceTimeline& device)
{
    double highest = 0;
    for (const sim::MemorySample& sample : device.memory)
        highest = std::max(highest, sample.mem_mb);
    return highest;
}

} // namespace stratex::test
