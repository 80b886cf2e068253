// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/json_reader.h"

namespace stratex::profile {

// Per-layer memory of one layer type at one sequence length (MB, MiB).
struct LayerMemoryEntry {
    std::string path; // JSON pointer of the entry, for messages
    double parameter_size_mb = 0; // parameters of one layer at tp 1, counted fp32-sized
    std::map<int, double> activation_mb_per_sample; // by TP (or SP) degree
    std::optional<double> checkpoint_mb_per_sample; // "checkpoint": activation kept by a recomputed layer
};

// Embedding + LM head memory (other_memory_*), MB.
struct OtherMemoryEntry {
    std::string path;
    std::map<int, double> model_states_mb; // by vocab TP degree (fp32-equivalent, already x4)
    std::map<int, double> activation_mb_per_sample; // by TP/SP degree
};

enum class OtherMemoryPart { PipelineOff, FirstStage, LastStage };

// "layertype_{i}[_sp]": nested by sequence length (v2.1+: {"2048": {...}}) or flat (v2.0).
struct LayerMemoryGroup {
    std::string key;
    int layerType = 0;
    bool sequenceParallel = false; // the "_sp" variant: profiled with Megatron sequence parallelism
    bool flat = false; // v2.0: no sequence level
    std::vector<std::pair<std::string, LayerMemoryEntry>> bySeq; // sequence key as written ("2048"; "" if flat)
};

// "other_memory_pp_{off,on_first,on_last}[_sp]".
struct OtherMemoryGroup {
    std::string key;
    OtherMemoryPart part = OtherMemoryPart::PipelineOff;
    bool sequenceParallel = false;
    bool flat = false; // v2.0: scalar model_states / activation
    std::vector<std::pair<std::string, OtherMemoryEntry>> bySeq; // "2048", "[512,512]", "512_512"; "" if flat
};

// memory_profiling_{prec}_{model}[_all].json as written by Galvatron's memory profiler (v2.0 flat,
// v2.1-2.4 and 3.0 sequence-nested, multi-type and multi-sequence keys, the PaddleNLP port's
// unsuffixed keys). The raw per-strategy groups ("1_2_4_vtp_sp") are not read by the search.
struct MemoryProfile {
    std::string file;
    std::vector<LayerMemoryGroup> layers;
    std::vector<OtherMemoryGroup> others;
    std::vector<std::string> rawGroups;

    const LayerMemoryGroup* findLayer(int layerType, bool sequenceParallel) const;
    const OtherMemoryGroup* findOther(OtherMemoryPart part, bool sequenceParallel) const;
    std::vector<int> layerTypes() const;

    static MemoryProfile load(const std::filesystem::path& path);
    static MemoryProfile fromJson(const JsonView& root);
};

std::string otherMemoryKey(OtherMemoryPart part, bool sequenceParallel);

} // namespace stratex::profile
