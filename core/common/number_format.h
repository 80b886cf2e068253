// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace stratex {

// printf's "%.*f": `decimals` digits after the point, rounded. The one formatting of report
// numbers in core and the CLI, so their texts agree.
std::string fixed(double value, int decimals);

// A fraction as a signed percentage with one decimal: 0.123 -> "+12.3 %" (the reports' errors and
// claims, predicted / measured - 1).
std::string signedPercent(double fraction);

} // namespace stratex
