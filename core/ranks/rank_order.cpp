// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/rank_order.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "core/common/error.h"

namespace stratex::ranks {

namespace {
constexpr std::array<std::string_view, kDimCount> kTokens { "tp", "cp", "ep", "dp", "pp" };

std::optional<Dim> dimFromToken(std::string_view token)
{
    for (int i = 0; i < kDimCount; ++i) {
        if (kTokens[i] == token)
            return static_cast<Dim>(i);
    }
    return std::nullopt;
}
} // namespace

std::string_view dimToken(Dim dim)
{
    return kTokens[static_cast<int>(dim)];
}

RankOrder RankOrder::parse(std::string_view order, const DimSizes& sizes)
{
    std::string lowered(order);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });

    std::vector<Dim> given;
    std::size_t start = 0;
    while (start <= lowered.size()) {
        const std::size_t end = std::min(lowered.find('-', start), lowered.size());
        const std::string_view token = std::string_view(lowered).substr(start, end - start);
        const auto dim = dimFromToken(token);
        if (!dim)
            throw Error("order \"" + std::string(order) + "\": unknown token \"" + std::string(token)
                + "\" (expected tp, cp, ep, dp or pp joined by '-')");
        if (std::find(given.begin(), given.end(), *dim) != given.end())
            throw Error("order \"" + std::string(order) + "\": token \"" + std::string(token) + "\" appears twice");
        given.push_back(*dim);
        start = end + 1;
    }

    RankOrder result;
    result.m_explicitLast = given.back();
    std::vector<Dim> all = given;
    for (int i = 0; i < kDimCount; ++i) {
        const Dim dim = static_cast<Dim>(i);
        if (std::find(given.begin(), given.end(), dim) != given.end())
            continue;
        if (sizes[i] != 1)
            throw Error("order \"" + std::string(order) + "\" omits \"" + std::string(kTokens[i])
                + "\" but its size is " + std::to_string(sizes[i]) + " (only tokens of size 1 may be omitted)");
        all.push_back(dim);
    }
    for (int i = 0; i < kDimCount; ++i) {
        result.m_dims[i] = all[i];
        result.m_position[static_cast<int>(all[i])] = i;
    }
    return result;
}

std::string RankOrder::toString() const
{
    std::string text;
    for (Dim dim : m_dims) {
        if (!text.empty())
            text += '-';
        text += dimToken(dim);
    }
    return text;
}

} // namespace stratex::ranks
