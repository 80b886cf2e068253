// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How far the time model has been off on measured runs of the plan's own model (issue 22 item 5:
// every plan says how far it is from measured evidence). The coverage notes (plan_evidence.h) say
// whether a plan's dimensions were measured at all; this says, for a model that was measured, how
// far the predictions of those runs were from what they measured: a plan for gpt-oss-120b should
// know that every published gpt-oss run was predicted 18-49 % too fast (docs/moe.md). The time
// analogue of the memory margin (memory_margin.h). docs/evidence.md, "Measured runs of the model".

#include <string>
#include <vector>

#include "core/model/model_description.h"

namespace stratex::megatron {

// A model's shape, whatever its name and sequence length: layers, hidden, FFN, heads, KV heads,
// head dimension, MLP kind, MLA and MoE shape. Two descriptions of one architecture (a preset, a
// record, an imported HF config) give the same key. The vocabulary is left out: records pad it
// (GPT-3's 50,257 to 51,200) and it does not tell two models apart.
std::string architectureKey(const model::ModelDescription& model);

// The model's throughput error (predicted over measured throughput - 1, > 0: predicted too fast)
// over the timed reference runs of one architecture, with the bundled presets (what `stratex-cli
// reference` prints; not cross-validated: a run of the fit set was fitted on). A table, like
// bundledCoverage(): tests/core/megatron/tst_model_time_evidence recomputes it from the records and
// fails, with the rows to paste, when a record or the model moves it.
struct ModelTimeError {
    std::string architecture; // architectureKey
    std::string model_names; // the records' model names, first seen first, ", "-separated
    int runs = 0;
    double lowest = 0;
    double highest = 0;
    double mean = 0;
};
const std::vector<ModelTimeError>& bundledModelTimeErrors();

// issue 22's bar for a search's claim over a measured run: measured runs of the model predicted
// further off than this make the plan's time "off" (as core/runs/search_claims.h kClaimBar).
inline constexpr double kModelTimeErrorBar = 0.15;

struct ModelTimeEvidence {
    int runs = 0; // 0: no timed reference run of this architecture
    double lowest = 0;
    double highest = 0;
    double mean = 0;
    // Some measured run of the model was predicted more than kModelTimeErrorBar off.
    bool off = false;
    // One line for the CLI and the GUI, e.g. "time: 3 measured runs of this model (gpt-oss-120b)
    // were predicted +17.6 % to +48.4 %, mean +34.5 % (> 0: too fast); this plan's time is likely
    // optimistic too".
    std::string note;
};

ModelTimeEvidence modelTimeEvidence(const model::ModelDescription& model);

} // namespace stratex::megatron
