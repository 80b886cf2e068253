// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex executable as the README's main job runs it: --screenshot with no display.
#include <QColor>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestGuiSmoke : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void screenshotWithoutDisplay_data();
    void screenshotWithoutDisplay();
    void themeReachesTheCharts_data();
    void themeReachesTheCharts();
    void unknownPageIsAUsageError();
    void unknownThemeIsAUsageError();
    void badStrategyFileFails();
    void brokenProfilesFolderFails();
    void helpAndVersionWithoutDisplay_data();
    void helpAndVersionWithoutDisplay();
};

void TestGuiSmoke::screenshotWithoutDisplay_data()
{
    QTest::addColumn<QStringList>("extraArgs");
    QTest::newRow("default") << QStringList {};
    QTest::newRow("planner-page") << QStringList { "--page", "planner" };
    QTest::newRow("profiles-page") << QStringList { "--page", "profiles" };
    QTest::newRow("search-page-with-profiles-folder") << QStringList { "--page", "search",
        QStringLiteral(STRATEX_SOURCE_DIR) + "/resources/examples/llama2-13b-a100-40gb-2x8" };
    QTest::newRow("timeline-page") << QStringList { "--page", "timeline" };
    QTest::newRow("ranks-page-with-file") << QStringList { "--page", "ranks",
        QStringLiteral(STRATEX_SOURCE_DIR) + "/resources/examples/tracer-batch.txt" };
}

void TestGuiSmoke::screenshotWithoutDisplay()
{
    QFETCH(QStringList, extraArgs);
    QTemporaryDir dir;
    const QString png = dir.filePath("main.png");
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM"); // the executable must choose offscreen itself
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, QStringList { "--screenshot", png } + extraArgs);
    QVERIFY(gui.waitForFinished(60000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 600);
}

void TestGuiSmoke::themeReachesTheCharts_data()
{
    QTest::addColumn<QString>("theme");
    QTest::addColumn<QString>("page");
    QTest::addColumn<bool>("dark");
    // The pages with charts: a chart left in Qt Charts' white would light up the dark window.
    for (const char* page : { "profiles", "search", "planner", "calibrate" }) {
        QTest::addRow("dark-%s", page) << "dark" << page << true;
        QTest::addRow("light-%s", page) << "light" << page << false;
    }
}

// The window's mean lightness: under 30 % in the dark theme, over 70 % in the light one.
void TestGuiSmoke::themeReachesTheCharts()
{
    QFETCH(QString, theme);
    QFETCH(QString, page);
    QFETCH(bool, dark);
    QTemporaryDir dir;
    const QString png = dir.filePath("themed.png");
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, { "--theme", theme, "--page", page, "--screenshot", png });
    QVERIFY(gui.waitForFinished(60000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());
    const QImage image(png);
    QVERIFY(!image.isNull());
    double sum = 0;
    int count = 0;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            sum += QColor(image.pixel(x, y)).lightnessF();
            ++count;
        }
    }
    const double mean = sum / count;
    QVERIFY2(dark ? mean < 0.3 : mean > 0.7, qPrintable(QStringLiteral("mean lightness %1").arg(mean)));
}

void TestGuiSmoke::unknownPageIsAUsageError()
{
    QTemporaryDir dir;
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, { "--page", "nope", "--screenshot", dir.filePath("x.png") });
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 2);
    QVERIFY(gui.readAllStandardError().contains("unknown page"));
}

void TestGuiSmoke::unknownThemeIsAUsageError()
{
    QTemporaryDir dir;
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, { "--theme", "purple", "--screenshot", dir.filePath("x.png") });
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 2);
    QVERIFY(gui.readAllStandardError().contains("unknown theme"));
}

void TestGuiSmoke::badStrategyFileFails()
{
    // A .json given on the command line that is a broken strategy (its keys say so) is refused at
    // once: exit 1 with the file and key, not a background failure after exit 0.
    QTemporaryDir dir;
    const QString strategy = dir.filePath("strategy.json");
    QFile file(strategy);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"pp_deg": 0, "tp_sizes_enc": "1,1"})");
    file.close();
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, { "--screenshot", dir.filePath("x.png"), strategy });
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 1);
    const QByteArray err = gui.readAllStandardError();
    QVERIFY2(err.contains(strategy.toUtf8() + ": /pp_deg: expected a positive degree"), err.constData());
}

void TestGuiSmoke::brokenProfilesFolderFails()
{
    // Issue 26: a folder the Search page takes (it holds a computation profile) but whose search
    // fails in the background showed the error on the page, and --screenshot still exited 0.
    QTemporaryDir dir;
    const QString folder = dir.filePath("profiles");
    QVERIFY(QDir().mkpath(folder));
    QFile file(folder + "/computation_profiling_bf16_broken_all.json");
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"layertype_0\": ");
    file.close();
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, { "--screenshot", dir.filePath("x.png"), folder });
    QVERIFY(gui.waitForFinished(60000));
    const QByteArray err = gui.readAllStandardError();
    QVERIFY2(gui.exitCode() == 1, err.constData());
    QVERIFY2(err.contains(folder.toUtf8()), err.constData()); // the page's error, naming the folder
}

void TestGuiSmoke::helpAndVersionWithoutDisplay_data()
{
    QTest::addColumn<QString>("arg");
    QTest::addColumn<QString>("output");
    QTest::newRow("help") << "--help"
                          << "--screenshot";
    QTest::newRow("version") << "--version"
                             << "stratex";
}

// They used to abort (SIGABRT) looking for an X server.
void TestGuiSmoke::helpAndVersionWithoutDisplay()
{
    QFETCH(QString, arg);
    QFETCH(QString, output);
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    gui.setProcessEnvironment(env);
    gui.start(STRATEX_GUI_PATH, { arg });
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
    QCOMPARE(gui.exitCode(), 0);
    QVERIFY(QString::fromUtf8(gui.readAllStandardOutput()).contains(output));
}

QTEST_GUILESS_MAIN(TestGuiSmoke)
#include "tst_gui_smoke.moc"
