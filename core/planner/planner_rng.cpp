// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_rng.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace stratex::planner {

namespace {
std::uint64_t splitMix64(std::uint64_t& x)
{
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}
} // namespace

PlannerRng::PlannerRng(std::uint64_t seed)
{
    for (std::uint64_t& word : m_state)
        word = splitMix64(seed);
}

std::uint64_t PlannerRng::next()
{
    const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
    const std::uint64_t t = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = rotl(m_state[3], 45);
    return result;
}

double PlannerRng::uniform()
{
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::size_t PlannerRng::below(std::size_t n)
{
    if (n <= 1)
        return 0;
    const std::uint64_t bound = n;
    // Largest multiple of n that fits: values at or above it would favour small results.
    const std::uint64_t limit
        = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
    std::uint64_t value = next();
    while (value >= limit)
        value = next();
    return static_cast<std::size_t>(value % bound);
}

double PlannerRng::normal()
{
    const double u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

} // namespace stratex::planner
