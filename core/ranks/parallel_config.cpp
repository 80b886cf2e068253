// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/parallel_config.h"

namespace stratex::ranks {

std::optional<std::int64_t> checkedProduct(std::initializer_list<int> factors)
{
    std::int64_t product = 1;
    for (int factor : factors) {
        if (__builtin_mul_overflow(product, std::int64_t(factor), &product))
            return std::nullopt;
    }
    return product;
}

std::string describe(const ParallelConfig& config)
{
    return "world " + std::to_string(config.world) + ", tp " + std::to_string(config.tp) + ", pp "
        + std::to_string(config.pp) + ", cp " + std::to_string(config.cp) + ", ep " + std::to_string(config.ep)
        + ", etp " + std::to_string(config.effectiveEtp()) + ", order " + config.order;
}

} // namespace stratex::ranks
