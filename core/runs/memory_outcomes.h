// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether the model's fit check ("fits": the device peak within the GPU's memory) agrees with what
// each measured run did (issue 23): a run that trained must not be called out of memory, and a run
// that went out of memory (a record with "trained": false, resources/reference-runs/README.md)
// should be. A memory-error mean cannot show the second kind of miss: such a run publishes no peak,
// only that it did not fit. `stratex-cli reference` and `reference --cross-validate` print both
// counts and name the runs the check gets wrong (docs/memory-model.md, "Runs that went out of
// memory").

#include <string>
#include <vector>

namespace stratex::runs {

struct MemoryOutcomeRow {
    std::string id;
    bool trained = true; // the record's measured.trained
    bool predicted_oom = false; // the estimate's device peak beyond the GPU's memory
    double predicted_device_peak_gib = 0; // worst stage
    double memory_limit_gib = 0;
};

struct MemoryOutcomes {
    int trained = 0; // costed runs that trained
    int out_of_memory = 0; // costed runs that went out of memory
    std::vector<MemoryOutcomeRow> trained_called_oom; // misses: the check refuses a run that trained
    std::vector<MemoryOutcomeRow> oom_called_fitting; // misses: the check accepts a run that did not fit
};

// `rows` are the costed runs (a run the model cannot cost has no fit check).
MemoryOutcomes memoryOutcomes(const std::vector<MemoryOutcomeRow>& rows);

// One run's outcome for the per-run lines, e.g. "went out of memory (measured); predicted device
// peak 67.9 of 80.0 GiB: called fitting (a miss)". Empty for a run that trained and is called fitting.
std::string memoryOutcomeLine(const MemoryOutcomeRow& row);

// The summary lines: the counts, and each miss by id with its predicted peak.
std::string memoryOutcomesText(const MemoryOutcomes& outcomes);

} // namespace stratex::runs
