// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <charconv>

namespace stratex::profile::synth {

// Estimates carry no more digits than they deserve, and short numbers keep the files readable:
// the value is rounded to `decimals` places in decimal, so the JSON writer prints 3.948692, not
// 3.9486919999999999. Locale-independent (to_chars / from_chars).
inline double roundedDecimal(double value, int decimals)
{
    char buffer[64];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
    if (written.ec != std::errc())
        return value;
    double rounded = value;
    std::from_chars(buffer, written.ptr, rounded);
    return rounded;
}
inline double roundedMs(double value_ms)
{
    return roundedDecimal(value_ms, 6);
}
inline double roundedMb(double value_mb)
{
    return roundedDecimal(value_mb, 4);
}
inline double roundedGbPerS(double value)
{
    return roundedDecimal(value, 3);
}

} // namespace stratex::profile::synth
