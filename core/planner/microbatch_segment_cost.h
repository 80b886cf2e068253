// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/planner/layer_cost_model.h"

namespace stratex::planner {

// How the DP prices one candidate micro-batch (a contiguous run of samples), docs/dynapipe-planner.md
// §2 "Segment cost": padded to the run's longest sample (implicit padding cost), the bottleneck
// stage's forward + backward time over layers_per_stage layers, its stored activation and its
// peak. Arithmetic is in single precision, in DynaPipe's order, so that ties in the DP resolve
// the same way and the ground truth reproduces to the bit.
struct SegmentShapeConfig {
    int tp = 1;
    RecomputeType recompute = RecomputeType::None;
    int layers_per_stage = 1;
    int chunks_per_device = 1;
    int round_seqlen_multiple = 8;
    int decoder_additional_tokens = 2;
};

struct SegmentCost {
    float time_ms = 0;
    float stored_mb = 0;
    float peak_mb = 0;
};

// Padded lengths of a run whose longest samples have these lengths: rounded up to the multiple,
// the decoder first gets its additional tokens; a length of 0 stays 0.
int paddedSeqlen(int maxSeqlen, const SegmentShapeConfig& config);
int paddedDecoderSeqlen(int maxDecoderSeqlen, const SegmentShapeConfig& config);

// The runs of one padded shape, by micro-batch size (index mbs - 1), filled as they are asked for.
struct SegmentCostRow {
    int padded_seqlen = 0;
    int padded_decoder_seqlen = 0;
    std::vector<SegmentCost> cost;
    std::vector<char> known;
};

// Memoizes the cost-model lookups by padded shape: the DP asks for O(N^2) runs but only
// O(N * distinct lengths) shapes exist.
class SegmentCostCache {
public:
    SegmentCostCache(const LayerCostModel& model, const SegmentShapeConfig& config);

    // mbs and the already padded lengths.
    SegmentCost cost(int mbs, int paddedSeqlen, int paddedDecoderSeqlen);
    // The same through a row: the DP's inner loop asks for every size of one shape in turn.
    // References stay valid for the cache's lifetime.
    SegmentCostRow& row(int paddedSeqlen, int paddedDecoderSeqlen);
    SegmentCost cost(SegmentCostRow& row, int mbs);
    std::size_t size() const { return m_rowEntries; } // distinct shapes priced
    // Every shape priced so far, in no particular order.
    std::vector<SegmentCost> priced() const;
    const SegmentShapeConfig& config() const { return m_config; }

private:
    SegmentCost compute(int mbs, int paddedSeqlen, int paddedDecoderSeqlen) const;

    const LayerCostModel& m_model;
    SegmentShapeConfig m_config;
    bool m_encoderDecoder;
    std::unordered_map<std::uint64_t, SegmentCostRow> m_rows;
    std::size_t m_rowEntries = 0;
};

} // namespace stratex::planner
