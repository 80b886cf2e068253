// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/profile/memory_profile.h"

namespace stratex::profile {

// How memory numbers are read (Galvatron's memory_profile_mode).
enum class MemoryProfileMode {
    Static, // the entry of the exact target sequence length
    Sequence, // parameters from the shortest, activations from the longest profiled sequence, scaled linearly
};

std::string_view memoryProfileModeName(MemoryProfileMode mode);
std::optional<MemoryProfileMode> parseMemoryProfileMode(std::string_view name);

// One layer's memory numbers at the target sequence length. Lookups of a degree the file lacks
// throw InputError naming the file and key path, as Galvatron's KeyError would (with less help).
struct LayerMemoryModel {
    std::string file;
    std::string path; // JSON pointer of the entry the numbers came from
    double parameter_size_mb = 0;
    std::map<int, double> activation_mb_per_sample;
    std::optional<double> checkpoint_mb_per_sample;

    double activation(int tpsp) const;
    double checkpointActivation() const;
};

struct OtherMemoryModel {
    std::string file;
    std::string path;
    std::map<int, double> model_states_mb;
    std::map<int, double> activation_mb_per_sample;

    double modelStates(int tp) const;
    double activation(int tpsp) const;
};

struct MemoryModels {
    LayerMemoryModel layer;
    OtherMemoryModel off; // pp = 1: embedding and LM head on the one stage
    OtherMemoryModel first; // pp > 1: embedding stage
    OtherMemoryModel last; // pp > 1: LM head stage
};

// docs/galvatron-search.md §1.4: the "_sp" keys when sequenceParallel, else the unsuffixed
// ones; static reads the entry keyed by seqLength (v2.0 flat files have one entry for every length);
// sequence takes parameter_size from the shortest and activations from the longest sequence,
// scaled by seqLength / longest (requires sequenceParallel).
MemoryModels resolveMemoryModels(
    const MemoryProfile& profile, MemoryProfileMode mode, int seqLength, bool sequenceParallel, int layerType = 0);

} // namespace stratex::profile
