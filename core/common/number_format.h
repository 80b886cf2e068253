// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace stratex {

// printf's "%.*f": `decimals` digits after the point, rounded. The one formatting of report
// numbers in core and the CLI, so their texts agree.
std::string fixed(double value, int decimals);

} // namespace stratex
