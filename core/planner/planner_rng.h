// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace stratex::planner {

// The planner's one source of randomness, fully specified so that the same seed gives the same
// lengths, clusters and permutations with any compiler and standard library (std::
// distributions are implementation-defined):
//   state   xoshiro256** (Blackman & Vigna, 2018), its four words filled by SplitMix64 from seed;
//   uniform (next() >> 11) * 2^-53, in [0, 1);
//   below   uniform integer in [0, n) by rejection of the biased tail of next() % n;
//   normal  Box-Muller, z = sqrt(-2 ln(1 - u1)) * cos(2 pi u2), one draw per two uniforms;
//   shuffle Fisher-Yates from the back, j = below(i + 1).
class PlannerRng {
public:
    explicit PlannerRng(std::uint64_t seed);

    std::uint64_t next();
    double uniform();
    std::size_t below(std::size_t n);
    double normal();

    template <typename T> void shuffle(std::vector<T>& values)
    {
        for (std::size_t i = values.size(); i > 1; --i)
            std::swap(values[i - 1], values[below(i)]);
    }

private:
    std::uint64_t m_state[4];
};

} // namespace stratex::planner
