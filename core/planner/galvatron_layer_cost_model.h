// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/cost_model.h"
#include "core/planner/layer_cost_model.h"

namespace stratex::planner {

// The Galvatron profile and cost model of the strategy search as the planner's layer cost model,
// so the planner can plan with the profile the search loaded (issue 4 §1, second implementation).
//
// Galvatron describes one sequence length S (the cost model's seq_length): per-sample forward
// time, activation MB per sample at each TP degree, and one parameter size. A micro-batch of b
// samples of length s is costed as b*s/S samples at length S -- exact at S, an approximation at
// other lengths (attention grows faster than linearly). Times follow Galvatron's formulas
// (forward f*samples/tp or slope*samples/tp + intercept; backward twice the forward, plus one
// forward under full recompute); activation memory is Galvatron's, the transient peak equals the
// stored memory (Galvatron models none). Selective recompute has no Galvatron profile and is not
// supported.
class GalvatronLayerCostModel final : public LayerCostModel {
public:
    explicit GalvatronLayerCostModel(galvatron::CostModel model, std::string name = {});

    std::string name() const override;
    ModelArchitecture architecture() const override { return ModelArchitecture::DecoderOnly; }
    bool supports(int tp, RecomputeType recompute) const override;
    std::vector<int> tensorParallelSizes() const override;
    LayerCostEstimate estimate(const LayerCostQuery& query) const override;
    // fp16 parameter MB (DynaPipe's convention): Galvatron's fp32-sized parameter_size / 2, and the
    // embedding / LM head's model states / 8 (16 bytes per parameter).
    ModelParameterSizes parameterSizes(int tp, RecomputeType recompute) const override;

    const galvatron::CostModel& costModel() const { return m_model; }

private:
    double samplesAtProfiledLength(int microBatchSize, int seqlen) const;

    galvatron::CostModel m_model;
    std::string m_name;
};

} // namespace stratex::planner
