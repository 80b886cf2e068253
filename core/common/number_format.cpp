// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/number_format.h"

#include <cstdio>

namespace stratex {

std::string fixed(double value, int decimals)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string signedPercent(double fraction)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%+.1f %%", fraction * 100);
    return buffer;
}

} // namespace stratex
