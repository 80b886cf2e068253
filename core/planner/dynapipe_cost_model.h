// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/planner/dynapipe_cost_model_grid.h"
#include "core/planner/layer_cost_model.h"

namespace stratex {
class JsonView;
}

namespace stratex::planner {

// DynaPipe's profile-based cost model in its JSON form (tests/data/dynapipe/
// *_cost_model*.json; the file's own "format" key describes it): one sub-model per
// "tp{T}_{rc}" key, each a set of grids over (mbs, seqlen) -- (mbs, enc, dec) for decoder layers
// -- interpolated linearly, extrapolated linearly below the profiled range and infeasible above
// it or at points that ran out of memory (DynapipeCostGrid).
class DynapipeCostModel final : public LayerCostModel {
public:
    // Throws InputError (file, key path, expected, found) on any malformed part.
    static DynapipeCostModel load(const std::filesystem::path& path);
    // Several files (e.g. one per recompute type) merged into one model; a (tp, rc) given twice
    // or files of different architectures are errors.
    static DynapipeCostModel load(const std::vector<std::filesystem::path>& paths);
    static DynapipeCostModel fromJson(const JsonView& root);

    std::string name() const override { return m_name; }
    ModelArchitecture architecture() const override { return m_architecture; }
    bool supports(int tp, RecomputeType recompute) const override;
    std::vector<int> tensorParallelSizes() const override;
    LayerCostEstimate estimate(const LayerCostQuery& query) const override;
    ModelParameterSizes parameterSizes(int tp, RecomputeType recompute) const override;
    // From the optional top-level "hidden_size" (a positive integer), else from "hidden N" in the
    // "model" description (the fixtures say "GPT 6.7B-style layer (hidden 4096, ..."), else 0.
    int hiddenSize() const override { return m_hiddenSize; }

    // "tp1_none, tp1_selective, ..." for messages.
    std::string subModelList() const;

private:
    struct SubModel {
        DynapipeCostGrid encoder_forward;
        DynapipeCostGrid encoder_backward;
        DynapipeCostGrid decoder_forward;
        DynapipeCostGrid decoder_backward;
        DynapipeCostGrid postprocess_forward;
        DynapipeCostGrid postprocess_backward;
        DynapipeCostGrid encoder_stored;
        DynapipeCostGrid encoder_peak;
        DynapipeCostGrid decoder_stored;
        DynapipeCostGrid decoder_peak;
        ModelParameterSizes parameters;
    };
    using Key = std::pair<int, RecomputeType>;

    static SubModel readSubModel(const JsonView& view, bool& hasDecoder);
    const SubModel& subModel(int tp, RecomputeType recompute) const;
    void merge(DynapipeCostModel&& other, const std::string& file);

    std::string m_name;
    int m_hiddenSize = 0;
    ModelArchitecture m_architecture = ModelArchitecture::DecoderOnly;
    std::map<Key, SubModel> m_models;
};

} // namespace stratex::planner
