// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/pipeline_layout_dump.h"

#include <functional>
#include <utility>

#include "core/runs/log_text.h"

namespace stratex::runs {

namespace {

// The dump prints the string given (the layout's __repr__ is its input).
constexpr std::size_t kMaxLayoutCharacters = 1 << 20; // unrolled: far above any model's layers and chunks

} // namespace

std::optional<std::vector<int>> layoutChunks(std::string_view text)
{
    // Expands repeats: returns the unrolled text of text[pos..] up to an unmatched ')'.
    std::size_t pos = 0;
    std::function<std::optional<std::string>(int)> unroll = [&](int depth) -> std::optional<std::string> {
        std::string out;
        while (pos < text.size()) {
            if (out.size() > kMaxLayoutCharacters)
                return std::nullopt;
            const char c = text[pos];
            std::string unit;
            if (c == '(') {
                ++pos;
                std::optional<std::string> inner = unroll(depth + 1);
                if (!inner || pos >= text.size() || text[pos] != ')')
                    return std::nullopt;
                ++pos;
                unit = *inner;
            } else if (c == ')') {
                return depth > 0 ? std::optional(out) : std::nullopt;
            } else if (c == ',' || c == ' ') {
                ++pos;
                continue;
            } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
                ++pos;
                unit = std::string(1, c);
            } else {
                return std::nullopt;
            }
            if (pos < text.size() && text[pos] == '*') {
                std::size_t end = ++pos;
                while (end < text.size() && text[end] >= '0' && text[end] <= '9')
                    ++end;
                const std::optional<long long> count = parseWholeNumber(std::string(text.substr(pos, end - pos)));
                if (!count || unit.size() * std::size_t(*count) > kMaxLayoutCharacters - out.size())
                    return std::nullopt;
                pos = end;
                for (long long i = 0; i < *count; ++i)
                    out += unit;
            } else {
                out += unit;
            }
        }
        return depth == 0 ? std::optional(out) : std::nullopt;
    };
    const std::optional<std::string> flat = unroll(0);
    if (!flat)
        return std::nullopt;
    std::vector<int> chunks(1, 0);
    for (const char c : *flat) {
        if (c == '|')
            chunks.push_back(0);
        else if (c == 't')
            ++chunks.back();
    }
    return chunks;
}

void readLayout(const std::string& layout, megatron::ParallelStrategy& s, int layers, std::vector<std::string>& notes)
{
    const std::optional<std::vector<int>> chunks = layoutChunks(layout);
    if (!chunks || chunks->size() % std::size_t(s.pp) != 0) {
        notes.push_back("pipeline_model_parallel_layout " + layout + ": not read, costed as the even division");
        return;
    }
    const int vpp = int(chunks->size()) / s.pp;
    std::vector<int> perRank(std::size_t(s.pp), 0);
    for (std::size_t c = 0; c < chunks->size(); ++c)
        perRank[c % std::size_t(s.pp)] += (*chunks)[c];
    for (const auto& [first, last] :
        { std::pair { 0, 0 }, { perRank.front(), 0 }, { 0, perRank.back() }, { perRank.front(), perRank.back() } }) {
        megatron::ParallelStrategy candidate = s;
        candidate.vpp = vpp;
        candidate.first_stage_layers = s.pp > 1 ? first : 0;
        candidate.last_stage_layers = s.pp > 1 ? last : 0;
        if (megatron::chunkLayerCounts(candidate, layers) == *chunks) {
            s = candidate;
            return;
        }
    }
    notes.push_back("pipeline_model_parallel_layout " + layout
        + ": a division a Stratex strategy cannot hold (uneven middle stages or chunks), costed as the even division");
}

} // namespace stratex::runs
