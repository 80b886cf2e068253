// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/zero_ratio.h"

namespace stratex::galvatron {

double zeroRatio(DpType type, int sdp, int chunks, bool mixed, bool asyncGradReduce)
{
    if (type == DpType::Ddp)
        return 1.0;
    const double q = 1.0 / sdp + 0.003;
    const bool zero3 = type == DpType::Zero3;
    if (chunks == 1) {
        if (zero3)
            return q;
        return mixed ? 0.875 * q + 0.125 : 0.75 * q + 0.25;
    }
    if (asyncGradReduce) {
        if (zero3)
            return mixed ? 0.875 * q + 0.125 : 0.75 * q + 0.25;
        return mixed ? 0.75 * q + 0.25 : 0.5 * q + 0.5;
    }
    if (zero3)
        return (q * 5) / 4;
    // Galvatron's fp32 ZeRO-2 ratio without async lacks the 5/4 of its mixed-precision twin (Q21).
    return mixed ? ((0.875 * q + 0.125) * 5) / 4 : 0.75 * q + 0.25;
}

} // namespace stratex::galvatron
