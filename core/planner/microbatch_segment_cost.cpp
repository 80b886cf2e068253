// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/microbatch_segment_cost.h"

#include <algorithm>

namespace stratex::planner {

namespace {
int roundUp(int value, int multiple)
{
    if (multiple <= 1)
        return value;
    return (value + multiple - 1) / multiple * multiple;
}

std::uint64_t shapeKey(int seqlen, int decoderSeqlen)
{
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(seqlen)) << 32)
        | static_cast<std::uint64_t>(static_cast<std::uint32_t>(decoderSeqlen));
}
} // namespace

int paddedSeqlen(int maxSeqlen, const SegmentShapeConfig& config)
{
    return roundUp(maxSeqlen, config.round_seqlen_multiple);
}

int paddedDecoderSeqlen(int maxDecoderSeqlen, const SegmentShapeConfig& config)
{
    if (maxDecoderSeqlen <= 0)
        return 0;
    return roundUp(maxDecoderSeqlen + config.decoder_additional_tokens, config.round_seqlen_multiple);
}

SegmentCostCache::SegmentCostCache(const LayerCostModel& model, const SegmentShapeConfig& config)
    : m_model(model)
    , m_config(config)
    , m_encoderDecoder(model.isEncoderDecoder())
{
}

SegmentCost SegmentCostCache::cost(int mbs, int paddedSeqlen, int paddedDecoderSeqlen)
{
    return cost(row(paddedSeqlen, paddedDecoderSeqlen), mbs);
}

SegmentCostRow& SegmentCostCache::row(int paddedSeqlen, int paddedDecoderSeqlen)
{
    SegmentCostRow& entry = m_rows[shapeKey(paddedSeqlen, paddedDecoderSeqlen)];
    entry.padded_seqlen = paddedSeqlen;
    entry.padded_decoder_seqlen = paddedDecoderSeqlen;
    return entry;
}

SegmentCost SegmentCostCache::cost(SegmentCostRow& row, int mbs)
{
    const std::size_t index = static_cast<std::size_t>(mbs - 1);
    if (index >= row.cost.size()) {
        row.cost.resize(index + 1);
        row.known.resize(index + 1, 0);
    }
    if (!row.known[index]) {
        row.cost[index] = compute(mbs, row.padded_seqlen, row.padded_decoder_seqlen);
        row.known[index] = 1;
        ++m_rowEntries;
    }
    return row.cost[index];
}

std::vector<SegmentCost> SegmentCostCache::priced() const
{
    std::vector<SegmentCost> costs;
    costs.reserve(m_rowEntries);
    for (const auto& [key, row] : m_rows) {
        for (std::size_t i = 0; i < row.cost.size(); ++i) {
            if (row.known[i])
                costs.push_back(row.cost[i]);
        }
    }
    return costs;
}

SegmentCost SegmentCostCache::compute(int mbs, int paddedSeqlen, int paddedDecoderSeqlen) const
{
    LayerCostQuery query;
    query.micro_batch_size = mbs;
    query.seqlen = paddedSeqlen;
    query.decoder_seqlen = paddedDecoderSeqlen;
    query.tp = m_config.tp;
    query.recompute = m_config.recompute;
    const LayerCostEstimate estimate = m_model.estimate(query);

    // Every lookup is narrowed to float first, then combined in float (see the header).
    const int layers = m_config.layers_per_stage;
    const float encFw = static_cast<float>(estimate.encoder.forward_ms);
    const float encBw = static_cast<float>(estimate.encoder.backward_ms);
    const float postFw = static_cast<float>(estimate.postprocess_forward_ms);
    const float postBw = static_cast<float>(estimate.postprocess_backward_ms);
    float encT = layers * (encFw + encBw);
    float decT = 0;
    float encStored = static_cast<float>(estimate.encoder.stored_activation_mb);
    float encPeak = static_cast<float>(estimate.encoder.peak_activation_mb);
    float decStored = 0;
    float decPeak = 0;
    if (m_encoderDecoder) {
        const float decFw = static_cast<float>(estimate.decoder.forward_ms);
        const float decBw = static_cast<float>(estimate.decoder.backward_ms);
        decT = layers * (decFw + decBw);
        decT = decT + postFw;
        decT = decT + postBw;
        decStored = static_cast<float>(estimate.decoder.stored_activation_mb);
        decPeak = static_cast<float>(estimate.decoder.peak_activation_mb);
    } else {
        encT = encT + postFw;
        encT = encT + postBw;
    }

    SegmentCost result;
    const int chunks = m_config.chunks_per_device;
    float storedPerLayer = 0;
    if (chunks == 1) {
        // Encoder and decoder are assumed to sit on different stages: the slower one bounds.
        result.time_ms = std::max(encT, decT);
        storedPerLayer = std::max(encStored, decStored);
    } else if (m_encoderDecoder) {
        // Interleaved: each device holds chunks/2 encoder and chunks/2 decoder chunks.
        const int half = chunks / 2;
        result.time_ms = (encT + decT) * half;
        storedPerLayer = (encStored + decStored) * half;
    } else {
        // DynaPipe rejects interleaved decoder-only placements (its chunks/2 formula assumes
        // encoder-decoder); here each device simply holds `chunks` stages of the same layers.
        result.time_ms = encT * chunks;
        storedPerLayer = encStored * chunks;
    }
    result.stored_mb = storedPerLayer * layers;
    result.peak_mb = std::max(encPeak, decPeak) + storedPerLayer * (layers - 1);
    return result;
}

} // namespace stratex::planner
