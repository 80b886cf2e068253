// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

namespace stratex {

// Runs body(worker, item) for item = 0 .. count-1 on `threads` threads (worker = 0 .. threads-1),
// handing out items in order as threads become free. The caller's thread is worker 0. When a
// body throws, the remaining items are skipped and the exception of the lowest failing item is
// rethrown after all threads stopped, so a failure does not depend on scheduling.
void parallelFor(int count, int threads, const std::function<void(int worker, int item)>& body);

// Threads to use for `requested` (0 or less: all hardware threads).
int effectiveThreads(int requested);

} // namespace stratex
