// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <stdexcept>
#include <vector>

#include <QString>
#include <QStringList>

namespace stratex::cli {

// Exit codes of stratex-cli (a public contract).
enum ExitCode : int {
    kExitOk = 0,
    kExitInvalidInput = 1, // invalid configuration or input, or a failed job
    kExitUsage = 2, // the command line itself is wrong
    kExitInterrupted = 130, // Ctrl-C (128 + SIGINT): nothing printed on stdout, no file written
};

// A wrong command line: unknown option, missing value, value of the wrong form.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct CliCommand {
    QString name;
    QString summary;
    int order = 0; // position in `stratex-cli --help`
    // args excludes the program and command names. Returns an ExitCode; may throw UsageError or
    // stratex::Error, which main() turns into a message and exit code 2 or 1.
    std::function<int(const QStringList& args)> run;
};

class CommandRegistry {
public:
    static void add(CliCommand command);
    static const std::vector<CliCommand>& all(); // sorted by order
    static const CliCommand* find(const QString& name);
};

// Each cmd_*.cpp defines one static RegisterCommand to make itself known.
struct RegisterCommand {
    explicit RegisterCommand(CliCommand command) { CommandRegistry::add(std::move(command)); }
};

} // namespace stratex::cli
