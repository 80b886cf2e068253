// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_parser.h"

#include <cstdio>

#include <QCoreApplication>

#include "app/cli/cli_command.h"
#include "core/common/bounded_read.h"
#include "core/common/input_limits.h"
#include "core/common/work_budget.h"

namespace stratex::cli {

CliParser::CliParser(const QString& command, const QString& description)
    : m_command(command)
{
    m_parser.setApplicationDescription(description);
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    m_parser.addHelpOption();
}

void CliParser::flag(const QString& name, const QString& help)
{
    m_parser.addOption(QCommandLineOption(name, help));
}

void CliParser::option(const QString& name, const QString& valueName, const QString& help)
{
    m_parser.addOption(QCommandLineOption(name, help, valueName));
}

void CliParser::positional(const QString& name, const QString& help, const QString& syntax)
{
    m_parser.addPositionalArgument(name, help, syntax);
}

void CliParser::inputLimitOption()
{
    m_inputLimit = true;
    option(QStringLiteral("max-input-mb"), QStringLiteral("MB"),
        QStringLiteral("Largest input file read, in MB (default %1; see the README's Limits).")
            .arg(limits::kDefaultMaxInputBytes >> 20));
}

void CliParser::workBudgetOption()
{
    m_workBudget = true;
    flag(QString::fromLatin1(kLiftWorkBudgetFlag + 2),
        QStringLiteral("Run even when the work or memory estimate is beyond its budget (see the README's Limits); "
                       "without it such a job is refused before it starts."));
}

bool CliParser::liftsWorkBudget() const
{
    return isSet(QString::fromLatin1(kLiftWorkBudgetFlag + 2));
}

void CliParser::parse(const QStringList& args)
{
    QStringList withProgram = args;
    withProgram.prepend(QStringLiteral("stratex-cli ") + m_command);
    if (!m_parser.parse(withProgram))
        usageError(m_parser.errorText());
    if (m_parser.isSet(QStringLiteral("help"))) {
        // Qt names the program by the path it was started as: "Usage: /usr/bin/stratex-cli [options]".
        // The usage line a user can type, and the man page shows, names the command.
        QString text = m_parser.helpText();
        const QString qtUsage = QStringLiteral("Usage: ") + QCoreApplication::arguments().value(0);
        if (text.startsWith(qtUsage))
            text.replace(0, qtUsage.size(), QStringLiteral("Usage: stratex-cli ") + m_command);
        const QByteArray help = text.toUtf8();
        std::fwrite(help.constData(), 1, std::size_t(help.size()), stdout);
        throw HelpShown {};
    }
    if (m_workBudget)
        setWorkBudgetsLifted(liftsWorkBudget());
    if (m_inputLimit && isSet(QStringLiteral("max-input-mb"))) {
        const int mb = intValue(QStringLiteral("max-input-mb"), 0, 1);
        if (mb > limits::kMaxInputMb)
            usageError(QStringLiteral("--max-input-mb must be at most %1, got %2").arg(limits::kMaxInputMb).arg(mb));
        setMaxInputBytes(std::int64_t(mb) << 20);
    }
}

void CliParser::usageError(const QString& message) const
{
    throw UsageError(message.toStdString());
}

std::optional<int> CliParser::optionalInt(const QString& name, int minimum) const
{
    if (!m_parser.isSet(name))
        return std::nullopt;
    bool ok = false;
    const int value = m_parser.value(name).toInt(&ok);
    if (!ok)
        usageError(QStringLiteral("--%1 expects an integer, got \"%2\"").arg(name, m_parser.value(name)));
    if (value < minimum)
        usageError(QStringLiteral("--%1 must be at least %2, got %3").arg(name).arg(minimum).arg(value));
    return value;
}

int CliParser::intValue(const QString& name, int fallback, int minimum) const
{
    return optionalInt(name, minimum).value_or(fallback);
}

QString CliParser::choice(const QString& name, const QStringList& allowed, const QString& fallback) const
{
    if (!m_parser.isSet(name))
        return fallback;
    const QString value = m_parser.value(name);
    if (!allowed.contains(value))
        usageError(
            QStringLiteral("--%1 must be one of %2, got \"%3\"").arg(name, allowed.join(QStringLiteral(", ")), value));
    return value;
}

} // namespace stratex::cli
