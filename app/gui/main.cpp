// SPDX-License-Identifier: GPL-3.0-or-later
// stratex: the GUI. `stratex [--page NAME] [--theme NAME] [--size WxH] [--screenshot FILE.png] [FILES...]`.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QSize>
#include <QTimer>

#include "jobs/job_runner.h"
#include "ui/common/theme.h"
#include "ui/main_window.h"
#include "ui/page.h"

namespace {

// Runs that need no window (--screenshot, --help, --version) must work without a display, where
// Qt would abort trying to reach an X server: choose the offscreen platform before QApplication
// exists.
void chooseHeadlessPlatform(int argc, char** argv)
{
    bool windowless = false;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        windowless = windowless || arg == "--screenshot" || arg.startsWith("--screenshot=") || arg == "--help"
            || arg == "-h" || arg == "--help-all" || arg == "--version" || arg == "-v";
    }
    const bool hasDisplay = qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
    if (windowless && !hasDisplay && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

void printError(const QString& message)
{
    const QByteArray bytes = (QStringLiteral("stratex: ") + message + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stderr);
}

} // namespace

int main(int argc, char** argv)
{
    chooseHeadlessPlatform(argc, argv);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Stratex"));
    QApplication::setApplicationName(QStringLiteral("stratex"));
    QApplication::setApplicationDisplayName(QStringLiteral("Stratex"));
    QApplication::setApplicationVersion(QStringLiteral(STRATEX_VERSION));
    QApplication::setDesktopFileName(QStringLiteral(STRATEX_APP_ID)); // its .desktop file's name

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Strategy explorer for distributed LLM training."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption pageOption(QStringLiteral("page"),
        QStringLiteral("Open this page (profiles, search, ranks, timeline, planner, calibrate)."),
        QStringLiteral("NAME"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
        QStringLiteral("Open the window (offscreen without a display), finish the startup work, save the window "
                       "to FILE and exit."),
        QStringLiteral("FILE.png"));
    const QCommandLineOption themeOption(QStringLiteral("theme"),
        QStringLiteral("Use this theme (system, light, dark) for this run, without saving it; by default "
                       "$STRATEX_THEME, else the one chosen in View > Theme."),
        QStringLiteral("NAME"));
    const QCommandLineOption sizeOption(QStringLiteral("size"),
        QStringLiteral("Window size in pixels, e.g. 1280x800 (a --screenshot's default: 1400x900)."),
        QStringLiteral("WxH"));
    parser.addOption(pageOption);
    parser.addOption(themeOption);
    parser.addOption(sizeOption);
    parser.addOption(screenshotOption);
    parser.addPositionalArgument(QStringLiteral("files"),
        QStringLiteral(
            "Files to open: a folder of Galvatron profiles, a Galvatron or Stratex strategy (.json, costed on the "
            "Search page), tracer batch configs (.txt), simulation cases (.json)."),
        QStringLiteral("[FILES...]"));
    parser.process(app);

    const bool screenshot = parser.isSet(screenshotOption);
    QSize size = screenshot ? stratex::ui::MainWindow::defaultSize() : QSize();
    if (parser.isSet(sizeOption)) {
        const QStringList parts = parser.value(sizeOption).split(QLatin1Char('x'));
        bool wide = false;
        bool high = false;
        size = parts.size() == 2 ? QSize(parts[0].toInt(&wide), parts[1].toInt(&high)) : QSize();
        if (!wide || !high || size.width() < 200 || size.height() < 150 || size.width() > 16384
            || size.height() > 16384) {
            printError(QStringLiteral("--size: expected WIDTHxHEIGHT in pixels from 200x150 to 16384x16384, found "
                                      "\"%1\"")
                           .arg(parser.value(sizeOption)));
            return 2;
        }
    }
    // The theme for screenshots and scripted runs: --theme, else $STRATEX_THEME.
    const QString themeChoice
        = parser.isSet(themeOption) ? parser.value(themeOption) : qEnvironmentVariable("STRATEX_THEME");
    if (!themeChoice.isEmpty()) {
        const QString name = themeChoice;
        const stratex::ui::Theme theme = stratex::ui::themeFromName(name);
        if (stratex::ui::themeName(theme) != name) {
            printError(QStringLiteral("unknown theme \"%1\" (themes: system, light, dark)").arg(name));
            return 2;
        }
        stratex::ui::applyTheme(theme);
    } else if (!screenshot) {
        stratex::ui::applyTheme(stratex::ui::themeFromName(
            QSettings().value(QStringLiteral("theme"), QStringLiteral("system")).toString()));
    }

    stratex::ui::MainWindow::Options options;
    options.persistSettings = !screenshot;
    options.startupExamples = true;
    stratex::ui::MainWindow window(options);
    int status = EXIT_SUCCESS;
    // A page takes a file and loads it in a job (a profiles folder is searched, a strategy
    // costed): a job that fails shows its error on the page, and a screenshot run must say so by
    // its exit code too (issue 26: 30 broken files gave exit 0).
    auto jobFailed = std::make_shared<bool>(false);
    if (screenshot) {
        for (const stratex::ui::Page* page : window.pages()) {
            for (stratex::jobs::JobRunner* runner : page->jobRunners()) {
                QObject::connect(
                    runner, &stratex::jobs::JobRunner::failed, &window, [jobFailed](const QString& message) {
                        printError(message);
                        *jobFailed = true;
                    });
            }
        }
    }
    for (const QString& file : parser.positionalArguments()) {
        QString error;
        if (!window.openFile(file, &error)) {
            printError(error);
            status = EXIT_FAILURE;
        }
    }
    if (parser.isSet(pageOption) && !window.setCurrentPage(parser.value(pageOption))) {
        QStringList ids;
        for (const stratex::ui::Page* page : window.pages())
            ids << page->pageId();
        printError(QStringLiteral("unknown page \"%1\" (pages: %2)")
                       .arg(parser.value(pageOption), ids.join(QStringLiteral(", "))));
        return 2;
    }
    if (size.isValid())
        window.resize(size);
    window.show();

    if (screenshot) {
        const QString path = parser.value(screenshotOption);
        window.whenIdle([&window, &app, path, status, jobFailed] {
            const bool saved = window.grab().save(path);
            if (!saved)
                printError(QStringLiteral("cannot save the screenshot to %1").arg(path));
            app.exit(saved && !*jobFailed ? status : EXIT_FAILURE);
        });
    }
    return app.exec();
}
