// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli: the command-line twin of the GUI. Dispatches to the registered commands.
#include <QCoreApplication>
#include <QFileInfo>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "core/common/error.h"
#include "core/common/progress.h"

namespace {

using namespace stratex::cli;

QString overview()
{
    QString text = QStringLiteral("Usage: stratex-cli <command> [options]\n"
                                  "Explore distributed LLM-training strategies without a display.\n\n"
                                  "Commands:\n");
    for (const CliCommand& command : CommandRegistry::all())
        text += QStringLiteral("  %1%2\n").arg(command.name.leftJustified(14), command.summary);
    text += QStringLiteral("\nRun 'stratex-cli <command> --help' for a command's options.\n"
                           "Exit codes: 0 success, 1 invalid configuration or input, 2 usage error, 130 "
                           "interrupted (Ctrl-C).\n");
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    installInterruptHandlers();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("stratex-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STRATEX_VERSION));

    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")
        || args.first() == QLatin1String("help")) {
        printOut(overview().toStdString());
        return args.isEmpty() ? kExitUsage : kExitOk;
    }
    if (args.first() == QLatin1String("--version")) {
        printOut("stratex-cli " STRATEX_VERSION "\n");
        return kExitOk;
    }

    const QString name = args.takeFirst();
    const CliCommand* command = CommandRegistry::find(name);
    if (!command) {
        printErr(QStringLiteral("stratex-cli: unknown command \"%1\"\n\n").arg(name).toStdString());
        printErr(overview().toStdString());
        return kExitUsage;
    }
    try {
        return command->run(args);
    } catch (const HelpShown&) {
        return kExitOk;
    } catch (const stratex::Cancelled&) {
        printErr(QStringLiteral("stratex-cli %1: interrupted\n").arg(name).toStdString());
        return kExitInterrupted;
    } catch (const UsageError& error) {
        printErr(QStringLiteral("stratex-cli %1: %2\nTry 'stratex-cli %1 --help'.\n")
                     .arg(name, QString::fromUtf8(error.what()))
                     .toStdString());
        return kExitUsage;
    } catch (const stratex::Error& error) {
        printErr(
            QStringLiteral("stratex-cli %1: error: %2\n").arg(name, QString::fromUtf8(error.what())).toStdString());
        return kExitInvalidInput;
    } catch (const std::bad_alloc&) {
        // The job boundary of every command: name the files it was given (issue 26: "out of memory"
        // named no file), the memory the unwinding released is enough for the message.
        QStringList files;
        for (const QString& arg : args) {
            if (!arg.startsWith(QLatin1Char('-')) && QFileInfo(arg).isFile())
                files << arg;
        }
        printErr(QStringLiteral("stratex-cli %1: error: out of memory%2; the input is beyond what this machine "
                                "holds (README.md, \"Limits\")\n")
                     .arg(name, files.isEmpty() ? QString() : QStringLiteral(" on ") + files.join(QStringLiteral(", ")))
                     .toStdString());
        return kExitInvalidInput;
    } catch (const std::exception& error) {
        // A bug of ours, not of the input; still a message and an exit code, never an abort.
        printErr(QStringLiteral("stratex-cli %1: internal error: %2\n")
                     .arg(name, QString::fromUtf8(error.what()))
                     .toStdString());
        return kExitInvalidInput;
    }
}
