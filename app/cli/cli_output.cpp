// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_output.h"

#include <cstdio>

#include "core/common/json_output.h"

namespace stratex::cli {

void printOut(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
}

void printJson(const nlohmann::ordered_json& json)
{
    // Strings can come from the user's files; a byte that is not UTF-8 must not turn a finished
    // run into an exception, so it is written as U+FFFD; a non-finite number is refused
    // (core/common/json_output.h).
    printOut(jsonText(json, -1, "the JSON report"));
    printOut("\n");
}

void printErr(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stderr);
}

} // namespace stratex::cli
