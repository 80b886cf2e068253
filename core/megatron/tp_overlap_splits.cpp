// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/tp_overlap_splits.h"

#include <algorithm>

namespace stratex::megatron {

TpOverlapSplits tpOverlapSplits(Framework framework, int tp)
{
    const int shards = std::max(1, tp);
    switch (framework) {
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        return { shards, 4, shards, 1, 3 };
    case Framework::Torchtitan:
        return { shards, shards, shards, shards, 1 };
    case Framework::DeepSpeed:
    case Framework::Composer:
        break;
    }
    return {};
}

double splitGemmExtraS(
    const std::function<double(double, double, double)>& gemmS, double m, double n, double k, int parts, int concurrent)
{
    if (parts <= 1)
        return 0;
    const double together = std::clamp(concurrent, 1, parts);
    return double(parts) / together * gemmS(m * together / parts, n, k) - gemmS(m, n, k);
}

} // namespace stratex::megatron
