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
    printOut(json.dump());
    printOut("\n");
}

void printErr(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stderr);
}

} // namespace stratex::cli
