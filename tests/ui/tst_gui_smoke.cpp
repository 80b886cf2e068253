// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex executable as the README's main job runs it: --screenshot with no display.
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
    void unknownPageIsAUsageError();
    void badStrategyFileFails();
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
    QVERIFY2(err.contains(strategy.toUtf8() + ": /pp_deg: expected a positive integer"), err.constData());
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
