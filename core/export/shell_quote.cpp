// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/shell_quote.h"

namespace stratex::exporting {

std::string shellQuote(std::string_view text)
{
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

std::string commentLine(std::string_view text)
{
    std::string line;
    line.reserve(text.size());
    for (char c : text)
        line += (c == '\n' || c == '\r') ? ' ' : c;
    return line;
}

} // namespace stratex::exporting
