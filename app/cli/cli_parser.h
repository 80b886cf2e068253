// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

namespace stratex::cli {

// Thrown after --help was printed: the command ends with exit code 0.
struct HelpShown { };

// QCommandLineParser with the conventions of stratex-cli: wrong command lines throw UsageError
// (exit 2), --help prints the command's help, typed accessors validate numbers.
class CliParser {
public:
    CliParser(const QString& command, const QString& description);

    void flag(const QString& name, const QString& help);
    void option(const QString& name, const QString& valueName, const QString& help);
    void positional(const QString& name, const QString& help, const QString& syntax = {});
    // --max-input-mb N, for commands that read files: parse() applies it to readTextFile's limit.
    void inputLimitOption();
    // --lift-work-budget: run a job beyond its work budget anyway (core/common/work_budget.h); a
    // refusal names the flag. liftsWorkBudget() after parse().
    void workBudgetOption();
    bool liftsWorkBudget() const;

    // Throws UsageError or HelpShown.
    void parse(const QStringList& args);

    bool isSet(const QString& name) const { return m_parser.isSet(name); }
    QString value(const QString& name) const { return m_parser.value(name); }
    QStringList values(const QString& name) const { return m_parser.values(name); }
    QStringList positionalArguments() const { return m_parser.positionalArguments(); }

    // The option's integer value, or `fallback` when it is not given. Throws UsageError when the
    // value is not an integer or is below `minimum`.
    int intValue(const QString& name, int fallback, int minimum = 1) const;
    std::optional<int> optionalInt(const QString& name, int minimum = 1) const;

    // Throws UsageError unless the value is one of `allowed`.
    QString choice(const QString& name, const QStringList& allowed, const QString& fallback) const;

    [[noreturn]] void usageError(const QString& message) const;

private:
    QString m_command;
    QCommandLineParser m_parser;
    bool m_inputLimit = false;
    bool m_workBudget = false;
};

} // namespace stratex::cli
