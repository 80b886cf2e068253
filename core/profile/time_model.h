// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/profile/computation_profile.h"
#include "core/profile/least_squares.h"

namespace stratex::profile {

// How forward times are read from a computation profile (Galvatron's time_profile_mode).
enum class TimeProfileMode {
    Static, // the first matching key in file order, a constant per sample
    Batch, // linear fit of batch time over batch size at the target sequence length
    Sequence, // quadratic (layers) / linear (other) fit over sequence length at bsz 1
};

std::string_view timeProfileModeName(TimeProfileMode mode);
std::optional<TimeProfileMode> parseTimeProfileMode(std::string_view name);

// Forward time of one layer (ms per sample) or of the embedding/LM head ("other", ms per sample)
// as a function of the per-GPU micro-batch. Constant: f per sample. Linear: slope * samples +
// intercept for the whole micro-batch (Galvatron's batch mode).
struct TimeModel {
    enum class Kind { Constant, Linear };
    Kind kind = Kind::Constant;
    double constant_ms = 0; // Constant
    LinearFit fit; // Linear: ms of a micro-batch of x samples = slope * x + intercept
    std::string source; // where the numbers came from, for people
    std::vector<std::pair<double, double>> points; // the fitted (x, y) points, if any

    static TimeModel constant(double ms, std::string source = {});
    static TimeModel linear(LinearFit fit, std::string source = {});
};

struct TimeModels {
    TimeModel layer;
    TimeModel other;
};

// Galvatron main's rules (docs/galvatron-search.md §1.3), for layer type `layerType`:
// static takes the first "layertype_{t}_" / "layertype_other_" key (v2.0's bare "layertype_0" and a
// missing "other" derived from the raw layernum keys are accepted too); batch needs >= 8 batch
// sizes at "_seq{S}"; sequence needs >= 3 (layers) / 2 (other) sequence lengths at bsz 1 and
// evaluates the fits at S. Throws InputError naming the file, keys, expectation and findings.
TimeModels resolveTimeModels(const ComputationProfile& profile, TimeProfileMode mode, int seqLength, int layerType = 0);

} // namespace stratex::profile
