// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_output.h"

#include <cstdio>

namespace stratex::cli {

void printOut(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
}

void printJson(const nlohmann::ordered_json& json)
{
    // Strings can come from the user's files; a byte that is not UTF-8 must not turn a finished
    // run into an exception, so it is written as U+FFFD.
    printOut(json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    printOut("\n");
}

void printErr(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stderr);
}

} // namespace stratex::cli
