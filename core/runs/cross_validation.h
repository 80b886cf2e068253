// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Leave-one-source-out cross-validation of the preset fit (`stratex-cli reference --cross-validate`,
// issue 22 item 6): the honest error of the stratex model on measured runs. Each source (one
// publication: a paper, a benchmark page) is left out in turn; the presets' efficiencies are
// fitted as `reference --fit` fits them on the fit runs of the other sources, and the left-out
// source's runs are predicted with that fit. Every record is predicted, the hold-out ones included,
// each by a fit that never saw its source; hold-out records are never fitted on (their README).

#include <optional>
#include <string>
#include <vector>

#include "core/runs/calibration.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

// The regimes the error is reported for (a run may be in several, or none).
inline constexpr const char* kRegimeSmallOneNode = "small model, one node"; // <= 10 B parameters, one node
inline constexpr const char* kRegimeMoe = "MoE";
inline constexpr const char* kRegimeLongContext = "long context (>= 32K)";
inline constexpr const char* kRegimeLargeScale = "> 1,000 GPUs";
std::vector<std::string> runRegimes(const ReferenceRun& run);

struct CrossValidatedRun {
    std::string id;
    std::string source;
    std::string family; // hardware::presetFamily of its GPU
    bool fit = false; // a "fit" record (else hold-out)
    std::vector<std::string> regimes;
    double measured_iteration_s = 0;
    double predicted_iteration_s = 0;
    double throughput_error = 0; // predicted over measured throughput - 1 (> 0: too optimistic)
    // The other sources held fit runs of its GPU family: predicted with their fit. Otherwise with
    // the family's prior (runs::familyPrior: its parent family's fit, or the datasheet-typical
    // efficiencies), named in `prior`.
    bool family_fitted = false;
    std::string prior; // when !family_fitted: "datasheet" or "<parent> fit"
    bool costed = true; // false: the model cannot cost it (its problem in `problem`)
    std::string problem;
    // false: a memory-only record; it counts in no throughput error (its throughput_error is 0).
    bool measured_time = true;
    // With a published peak memory: predicted / measured - 1 of the number it publishes, from the
    // same fold's efficiencies (memory depends on none of the fitted ones unless
    // memory_reserve_gb or activation_fragmentation are fitted: CalibrationOptions).
    std::optional<MemoryError> memory;
    // A costed run's fit check against what it did (trained or went out of memory), with this
    // fold's efficiencies.
    std::optional<MemoryOutcomeRow> outcome;
};

// One fit: what it left out and what it saw.
struct CrossValidationFold {
    std::vector<std::string> left_out; // sources predicted by this fit
    std::vector<std::string> trained_on; // ids of the runs fitted
    // Per family fitted in this fold: its prior, and which parameters its runs identified.
    std::vector<FamilyIdentification> families;
};

struct ErrorGroup {
    std::string name;
    int runs = 0; // costed runs in the group
    double mean_absolute_error = 0; // of throughput_error
    double mean_error = 0; // signed: > 0 too optimistic on average
};

struct CrossValidation {
    std::vector<CrossValidatedRun> runs; // in the input's order
    std::vector<CrossValidationFold> folds;
    ErrorGroup overall;
    std::vector<ErrorGroup> by_source; // sorted by name
    std::vector<ErrorGroup> by_family;
    std::vector<ErrorGroup> by_regime; // in the regimes' order above
    // Memory error of the records that publish peak memory, per framework and per framework and
    // kind (allocated, reserved, device): runs::memoryErrorsByFramework of the runs' `memory`.
    std::vector<MemoryErrorSummary> memory_by_framework;
    std::vector<MemoryErrorSummary> memory_by_framework_and_kind;
    MemoryOutcomes memory_outcomes; // of the costed runs' `outcome`
    int threads = 0;
};

// Sources that hold no fit run are all predicted by the same fit (on every fit run), computed once.
// Folds run on `threads` threads (0: all cores); the result does not depend on them. Throws
// stratex::Error for no runs or a fit that fails (naming the run).
CrossValidation crossValidate(
    const std::vector<ReferenceRun>& runs, const CalibrationOptions& options = {}, int threads = 0);

} // namespace stratex::runs
