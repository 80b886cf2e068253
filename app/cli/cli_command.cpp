// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_command.h"

#include <algorithm>

namespace stratex::cli {

namespace {
std::vector<CliCommand>& registry()
{
    static std::vector<CliCommand> commands;
    return commands;
}
} // namespace

void CommandRegistry::add(CliCommand command)
{
    auto& commands = registry();
    commands.push_back(std::move(command));
    std::stable_sort(
        commands.begin(), commands.end(), [](const CliCommand& a, const CliCommand& b) { return a.order < b.order; });
}

const std::vector<CliCommand>& CommandRegistry::all()
{
    return registry();
}

const CliCommand* CommandRegistry::find(const QString& name)
{
    for (const CliCommand& command : registry()) {
        if (command.name == name)
            return &command;
    }
    return nullptr;
}

} // namespace stratex::cli
