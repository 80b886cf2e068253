// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The stratex model's user actions, once for both front ends: what a user states (a command line or
// the Search page's form) resolved into a search request, the search run with its robustness, and
// a plan's pipeline. `stratex-cli search|evaluate --cost-model stratex` and StratexSearchController
// call these, so the two cannot disagree (tests/controllers/tst_front_end_parity checks it).

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/progress.h"
#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_robustness.h"
#include "core/megatron/strategy_search.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/hardware/cluster_description.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting.h"
#include "core/sim/timeline.h"

namespace stratex::megatron {

// A search-table setting the stratex model reads too (every other one is Galvatron's). The form
// shows the ones marked; the others are the command line's only: the form describes a model by a
// synthesized set or a preset name (a hidden shape field is not the user's statement), and gives
// the global batch in its own field rather than through Galvatron's settled batch.
struct SharedSearchFlag {
    std::string_view flag;
    bool form_shows;
};
std::span<const SharedSearchFlag> stratexSharedFlags();
bool stratexReads(std::string_view searchFlag);
bool stratexFormShows(std::string_view searchFlag);
// The given search-table flags the stratex model does not read, as "--flag".
std::vector<std::string> galvatronOnlyFlags(const settings::SettingNames& given);

// What a user states for the stratex model, in either front end.
struct StratexInputs {
    // Where a model and a cluster come from besides the flags: a plan file's or a synthesized
    // profile set's (`base_label` names them in messages).
    std::optional<model::ModelDescription> base_model;
    std::optional<hardware::ClusterDescription> base_cluster;
    std::string base_label;
    // Profiles were given that the stratex model does not read (measured ones): said as a warning.
    std::string measured_profiles;
    std::optional<hardware::ClusterDescription> cluster_file; // --cluster FILE, read
    galvatron::SearchSettings settings; // the search table's shared settings (stratexSharedFlags)
    settings::SettingNames given; // the search-table flags the user gave
    galvatron::ModelSettings model_flags; // --model PRESET and the architecture flags
    settings::SettingNames given_model;
    StrategySearchSettings stratex;
    int top = 10; // plans kept
    int threads = 0; // 0: all cores
};

// A synthesized set's record as the base: its model and its cluster (the GPU's memory is the limit
// unless given).
void adoptSynthesizedSet(StratexInputs& inputs, const profile::synth::SynthesisRecord& record);

// What the stratex model costs plans for, and what the resolution had to say.
struct StratexTarget {
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    hardware::Efficiency efficiency;
    double memory_limit_mb = 0;
    std::vector<std::string> warnings; // contradicting or unread inputs, one sentence each
};

// The one rule for the stratex model's inputs:
// - the model: galvatron::resolveModel over the base (--model PRESET and the shape flags win); without
//   a base or --model, a model name that names a preset (any case) is that preset;
// - the cluster: the cluster file, else the base's, else one on the settings' nodes; --gpu replaces
//   its GPU and drops a calibration made on another GPU (efficiencies hold for the GPU they were
//   measured on); given node counts override;
// - the efficiencies: the cluster's calibrated ones, else its GPU preset's (efficiencyFor);
// - the memory limit: the given memory per GPU, else the GPU's memory, both in GB as GPUs count them
//   (binary: an "80 GB" H100 has 80 GiB = 85,899 MB of 1e6 bytes; gibToMb).
// Throws stratex::Error naming what is missing, in words both front ends use.
StratexTarget resolveStratexTarget(const StratexInputs& inputs);

// The target with the global batch (the stratex field, else a given settled batch), the space, the
// plans kept and the threads. Throws stratex::Error without a batch.
StrategySearchRequest resolveStratexSearch(const StratexInputs& inputs, std::vector<std::string>* warnings = nullptr);

// A finished search: the plans, how far their ranking holds when the model is off by 5 or 10 % on
// one component, the wall time and the threads used.
struct StratexSearchRun {
    StrategySearchResult result;
    std::vector<PlanRobustness> robustness; // per plan of result.best
    double search_time_s = 0;
    int threads = 0;
};

// The evidence on one plan (evaluate, a plan file opened): its dimensions against what the bundled
// reference runs cover, as the search checks its plans.
PlanEvidence stratexPlanEvidence(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const ParallelStrategy& plan);

// Runs searchStrategies (90 % of the progress) and rankingRobustness (the rest) on `request`.
// Throws Cancelled when asked to stop, and first WorkBudgetExceeded when the search's estimate
// (search_work_estimate.h) is beyond its budget and `liftWorkBudget` is false.
StratexSearchRun runStratexSearch(
    const StrategySearchRequest& request, ProgressSink& progress, bool liftWorkBudget = false);

// A plan's pipeline simulated for the Timeline page and `simulate`: its schedule (1F1B, interleaved
// with its chunks, ZB-H1) with what every stage holds from the start (all but the activations) on
// its first chunk, so the memory curve peaks where the plan's peak is.
sim::Timeline stratexPlanTimeline(
    const model::ModelDescription& model, const hardware::ClusterDescription& cluster, const Estimate& plan);

} // namespace stratex::megatron
