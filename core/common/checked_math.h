// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Products and sums of sizes read from files and flags (degrees, world sizes, micro-batches,
// layers, tokens), computed in 64 bits with overflow checks. A product computed in `int` wrapped
// to 0 for tp 65536 x dp 65536 and was then divided by (SIGFPE, issue 26); one that wrapped to a
// small positive number "fitted" a cluster it did not (tp 8 x dp 536870913 on 8 GPUs). Here a
// product that overflows, is zero or negative, or exceeds the caller's bound is an input error
// naming the keys that were combined, so the user sees which values to fix.

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/error.h"

namespace stratex {

// One factor of a product, with the key (or flag) it came from: {"tp", 8}.
struct NamedFactor {
    std::string_view key;
    std::int64_t value = 0;
};

// a x b, or nothing when it overflows 64 bits.
inline std::optional<std::int64_t> multiplyChecked(std::int64_t a, std::int64_t b)
{
    std::int64_t result = 0;
    if (__builtin_mul_overflow(a, b, &result))
        return std::nullopt;
    return result;
}

// a + b, or nothing when it overflows 64 bits.
inline std::optional<std::int64_t> addChecked(std::int64_t a, std::int64_t b)
{
    std::int64_t result = 0;
    if (__builtin_add_overflow(a, b, &result))
        return std::nullopt;
    return result;
}

// "tp x pp x cp": the keys of a product, as the errors name them.
inline std::string factorNames(std::initializer_list<NamedFactor> factors)
{
    std::string names;
    for (const NamedFactor& factor : factors) {
        if (!names.empty())
            names += " x ";
        names += factor.key;
    }
    return names;
}

// The product of the factors when every factor is at least 1 and the product is at most `limit`;
// otherwise nothing (no throw: for validators that collect problems as text).
inline std::optional<std::int64_t> productWithin(
    std::initializer_list<NamedFactor> factors, std::int64_t limit = std::numeric_limits<std::int64_t>::max())
{
    std::int64_t product = 1;
    for (const NamedFactor& factor : factors) {
        if (factor.value < 1)
            return std::nullopt;
        const std::optional<std::int64_t> next = multiplyChecked(product, factor.value);
        if (!next || *next > limit)
            return std::nullopt;
        product = *next;
    }
    return product;
}

// What went wrong with a product, for a message: "tp x dp = 65536 x 65536 exceeds 2147483647".
inline std::string productProblem(
    std::initializer_list<NamedFactor> factors, std::int64_t limit = std::numeric_limits<std::int64_t>::max())
{
    std::string values;
    for (const NamedFactor& factor : factors) {
        if (!values.empty())
            values += " x ";
        values += std::to_string(factor.value);
    }
    for (const NamedFactor& factor : factors) {
        if (factor.value < 1)
            return std::string(factor.key) + " must be at least 1, found " + std::to_string(factor.value);
    }
    return factorNames(factors) + " = " + values + " exceeds " + std::to_string(limit);
}

// The product of the factors; throws stratex::InputError naming `file`, the keys combined
// ("tp x pp x cp"), the range and the factors' values when a factor is below 1 or the product
// overflows or exceeds `limit`.
inline std::int64_t checkedProduct(std::initializer_list<NamedFactor> factors, std::string_view file,
    std::int64_t limit = std::numeric_limits<std::int64_t>::max())
{
    if (const std::optional<std::int64_t> product = productWithin(factors, limit))
        return *product;
    throw InputError(std::string(file), factorNames(factors),
        "a product of at least 1 and at most " + std::to_string(limit), productProblem(factors, limit));
}

// checkedProduct bounded by what an `int` holds: for products the models keep in int.
inline int checkedIntProduct(std::initializer_list<NamedFactor> factors, std::string_view file)
{
    return int(checkedProduct(factors, file, std::numeric_limits<int>::max()));
}

// The sum of the terms when every term is at least 0 and the sum at most `limit`; throws
// stratex::InputError naming the keys ("first_stage_layers + last_stage_layers") otherwise.
inline std::int64_t checkedSum(std::initializer_list<NamedFactor> terms, std::string_view file,
    std::int64_t limit = std::numeric_limits<std::int64_t>::max())
{
    std::int64_t sum = 0;
    std::string names;
    std::string values;
    bool ok = true;
    for (const NamedFactor& term : terms) {
        names += (names.empty() ? "" : " + ") + std::string(term.key);
        values += (values.empty() ? "" : " + ") + std::to_string(term.value);
        const std::optional<std::int64_t> next = addChecked(sum, term.value);
        if (term.value < 0 || !next || *next > limit)
            ok = false;
        else
            sum = *next;
    }
    if (!ok)
        throw InputError(std::string(file), names, "a sum of terms of at least 0, at most " + std::to_string(limit),
            values);
    return sum;
}

} // namespace stratex
