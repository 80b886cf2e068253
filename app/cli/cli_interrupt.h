// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Ctrl-C and SIGTERM in stratex-cli. main() installs the handlers first. While an
// InterruptProgress lives (the command's long computation), SIGINT only sets a flag: the core job
// sees cancelled() through its ProgressSink and throws Cancelled within a step (a knapsack layer,
// a simulation), and main() ends with kExitInterrupted and nothing on stdout. At any other time
// (reading inputs, writing outputs) the signal ends the process at once with 128 + signal, after
// removing the temporaries of atomic writes in progress: no partial file is ever left behind.

#include "core/common/progress.h"

namespace stratex::cli {

void installInterruptHandlers();

class InterruptProgress final : public ProgressSink {
public:
    InterruptProgress();
    ~InterruptProgress() override;
    InterruptProgress(const InterruptProgress&) = delete;
    InterruptProgress& operator=(const InterruptProgress&) = delete;

    void report(double, std::string_view) override { }
    bool cancelled() const override;

    // Ends the cooperative phase; throws Cancelled when SIGINT came in it (even after the job's
    // last check), so no result of an interrupted run is printed.
    void finish();
};

} // namespace stratex::cli
