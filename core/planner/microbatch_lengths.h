// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where a global batch's sample lengths come from: a file, or the synthetic lognormal generator
// (no real length distribution ships with DynaPipe; docs/dynapipe-planner.md §9).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/planner/microbatch_types.h"

namespace stratex::planner {

// "lognormal:MEAN,SIGMA,N[:SEED]": N lengths round(exp(MEAN + SIGMA * z)), z standard normal
// from PlannerRng(SEED) (default seed 0), clamped to [min_seqlen, max_seqlen]. MEAN and SIGMA
// are those of ln(length), as numpy.random.lognormal's arguments: MEAN 5.5 gives a median of
// about 245 tokens. Encoder-decoder models draw each sample's decoder length right after its
// encoder length from the same distribution.
struct SyntheticLengthSpec {
    double mean_log = 0;
    double sigma_log = 0;
    int count = 0;
    std::uint64_t seed = 0;
    int min_seqlen = 8;
    int max_seqlen = 4096;

    std::string text() const; // back to "lognormal:..."
};

// Throws stratex::Error with the reason ("SIGMA must be >= 0, got -1").
SyntheticLengthSpec parseSyntheticLengthSpec(std::string_view text);
std::vector<Sample> generateSyntheticSamples(const SyntheticLengthSpec& spec, bool encoderDecoder);

// A lengths file, ids in file order:
// - text: one sample per line, "LEN" or "ENC DEC" (blank or comma separated); '#' starts a
//   comment; blank lines are skipped;
// - JSON: [LEN, ...], [[ENC, DEC], ...], or {"sample_lengths": [...], "target_lengths": [...]}
//   (target_lengths optional; the layout of dp_ground_truth.json's records).
// Throws InputError naming the line or key path.
std::vector<Sample> loadSampleLengths(const std::filesystem::path& path);
std::vector<Sample> parseSampleLengths(std::string_view text, const std::string& name);

} // namespace stratex::planner
