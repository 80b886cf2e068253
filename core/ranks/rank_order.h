// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace stratex::ranks {

// The five parallel dimensions Megatron's RankGenerator lays out.
enum class Dim { Tp = 0, Cp, Ep, Dp, Pp };
inline constexpr int kDimCount = 5;

std::string_view dimToken(Dim dim); // "tp", "cp", "ep", "dp", "pp"

using DimSizes = std::array<int, kDimCount>; // indexed by Dim

// An order string normalised as Megatron does: lower-cased, tokens in the given order (leftmost
// varies fastest), and every token the string omits appended at the end. Omitting a token is
// only allowed when its size is 1.
class RankOrder {
public:
    // Throws stratex::Error with a one-line reason for an unknown or repeated token, or for an
    // omitted token whose size is not 1.
    static RankOrder parse(std::string_view order, const DimSizes& sizes);

    const std::array<Dim, kDimCount>& dims() const { return m_dims; } // fastest first
    int position(Dim dim) const { return m_position[static_cast<int>(dim)]; }
    std::string toString() const; // the normalised form, e.g. "tp-cp-ep-dp-pp"
    bool endsWithPp() const { return m_explicitLast == Dim::Pp; }

private:
    std::array<Dim, kDimCount> m_dims {};
    std::array<int, kDimCount> m_position {};
    Dim m_explicitLast = Dim::Pp; // last token the user wrote (Megatron's endswith("pp") check)
};

} // namespace stratex::ranks
