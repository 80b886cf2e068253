// SPDX-License-Identifier: GPL-3.0-or-later
// The Timeline page's controller without widgets: cases files become named sources, a selection
// of one or two sources becomes a document of one or two simulated plans, broken files are
// reported with their name, timelines from other pages become selectable sources.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/sim/sim_cases.h"

#include "controllers/timeline_sources.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::controllers;

namespace {

using DocumentPointer = std::shared_ptr<const TimelineDocument>;

QString examplePath()
{
    return QStringLiteral(STRATEX_RESOURCES_DIR "/examples/pipeline-cases.json");
}

const QStringList& exampleNames()
{
    static const QStringList names {
        "pipeline-cases #1: 1F1B, 4 stages x 2 layers, 12 variable-length micro-batches",
        "pipeline-cases #2: wait-free cyclic, same micro-batches",
        "pipeline-cases #3: ZB-H1 (zero-bubble), same micro-batches",
        "pipeline-cases #4: GPipe, same micro-batches",
    };
    return names;
}

// Runs the controller's jobs to the end; a finished load starts a simulation, so in this order.
void settle(TimelineSources& sources)
{
    sources.loadRunner()->waitForIdle();
    sources.simulateRunner()->waitForIdle();
    sources.exportRunner()->waitForIdle();
}

bool openExample(TimelineSources& sources)
{
    QString error;
    if (!sources.openCasesFile(examplePath(), &error)) {
        qWarning("%s", qPrintable(error));
        return false;
    }
    settle(sources);
    return sources.sources().size() == std::size_t(exampleNames().size());
}

TimelineSourceId idAt(const TimelineSources& sources, int position)
{
    return sources.sources().at(std::size_t(position)).id;
}

QStringList planNames(const TimelineDocument& document)
{
    QStringList names;
    for (const TimelinePlanView& plan : document.plans)
        names << plan.name;
    return names;
}

// A timeline as another page would hand it over: the first example case, simulated here.
TimelineRequest request(const QString& name)
{
    sim::SimulationCase simulationCase = sim::loadSimulationCases(examplePath().toStdString()).at(0);
    simulationCase.options.build_timeline = true;
    sim::SimulationResult result = sim::simulate(simulationCase.input, simulationCase.schedule, simulationCase.options);
    return { name, std::make_shared<const sim::Timeline>(std::move(result.timeline)), 1000 };
}

} // namespace

class TestTimelineSources : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void loadsTheExampleCases();
    void showsTheSelection_data();
    void showsTheSelection();
    void latestSelectionWins();
    void ignoresUnknownSources();
    void reportsBrokenFiles_data();
    void reportsBrokenFiles();
    void reportsUnreadableFiles_data();
    void reportsUnreadableFiles();
    void addedTimelinesBecomeSources();
    void firstAddedTimelineIsShown();
    void exportsTheShownPlans();
};

void TestTimelineSources::initTestCase()
{
    qRegisterMetaType<DocumentPointer>();
}

void TestTimelineSources::loadsTheExampleCases()
{
    TimelineSources sources;
    QSignalSpy sourcesChanged(&sources, &TimelineSources::sourcesChanged);
    QSignalSpy documents(&sources, &TimelineSources::documentReady);
    QVERIFY(openExample(sources));

    QCOMPARE(sources.names(), exampleNames());
    QCOMPARE(sourcesChanged.count(), 1);
    const std::vector<TimelineSource> list = sources.sources();
    for (std::size_t i = 0; i < list.size(); ++i) {
        QCOMPARE(list[i].name, exampleNames().at(qsizetype(i)));
        for (std::size_t j = 0; j < i; ++j)
            QVERIFY(list[i].id != list[j].id);
    }
    // The first case is shown, compared with the second.
    QVERIFY(sources.selection());
    QVERIFY(*sources.selection() == (TimelineSelection { list[0].id, list[1].id }));
    QCOMPARE(documents.count(), 1);
    const DocumentPointer document = documents.at(0).at(0).value<DocumentPointer>();
    QVERIFY(document);
    QCOMPARE(document, sources.document());
    QCOMPARE(planNames(*document), exampleNames().mid(0, 2));
    for (const TimelinePlanView& plan : document->plans) {
        QCOMPARE(plan.deviceCount(), 4);
        QVERIFY(plan.timeline.makespan_us > 0);
    }
}

void TestTimelineSources::showsTheSelection_data()
{
    QTest::addColumn<int>("first");
    QTest::addColumn<int>("second"); // -1: none
    QTest::addColumn<QStringList>("plans");

    const QStringList& n = exampleNames();
    QTest::newRow("one plan") << 2 << -1 << QStringList { n[2] };
    QTest::newRow("two plans") << 0 << 3 << QStringList { n[0], n[3] };
    QTest::newRow("in the given order") << 3 << 1 << QStringList { n[3], n[1] };
    QTest::newRow("the same source twice") << 2 << 2 << QStringList { n[2] };
}

void TestTimelineSources::showsTheSelection()
{
    QFETCH(int, first);
    QFETCH(int, second);
    QFETCH(QStringList, plans);

    TimelineSources sources;
    QVERIFY(openExample(sources));
    QSignalSpy selectionChanged(&sources, &TimelineSources::selectionChanged);
    QSignalSpy documents(&sources, &TimelineSources::documentReady);

    const TimelineSelection selection { idAt(sources, first),
        second < 0 ? std::nullopt : std::optional(idAt(sources, second)) };
    sources.select(selection);
    settle(sources);

    QCOMPARE(selectionChanged.count(), 1);
    QVERIFY(sources.selection() == selection);
    QCOMPARE(documents.count(), 1);
    const DocumentPointer document = documents.at(0).at(0).value<DocumentPointer>();
    QCOMPARE(planNames(*document), plans);
    QCOMPARE(sources.document(), document);
}

void TestTimelineSources::latestSelectionWins()
{
    TimelineSources sources;
    QVERIFY(openExample(sources));
    QSignalSpy documents(&sources, &TimelineSources::documentReady);
    sources.select({ idAt(sources, 1), std::nullopt });
    sources.select({ idAt(sources, 2), idAt(sources, 0) });
    settle(sources);
    QCOMPARE(documents.count(), 1);
    QCOMPARE(planNames(*sources.document()), (QStringList { exampleNames()[2], exampleNames()[0] }));
}

void TestTimelineSources::ignoresUnknownSources()
{
    TimelineSources sources;
    QVERIFY(openExample(sources));
    const std::optional<TimelineSelection> before = sources.selection();
    QSignalSpy selectionChanged(&sources, &TimelineSources::selectionChanged);

    const TimelineSourceId unknown = TimelineSourceId(1000);
    sources.select({ unknown, idAt(sources, 0) });
    settle(sources);
    QCOMPARE(selectionChanged.count(), 0);
    QVERIFY(sources.selection() == before);

    // An unknown second source: the first alone.
    sources.select({ idAt(sources, 3), unknown });
    settle(sources);
    QVERIFY(sources.selection() == (TimelineSelection { idAt(sources, 3), std::nullopt }));
    QCOMPARE(planNames(*sources.document()), QStringList { exampleNames()[3] });
}

void TestTimelineSources::reportsBrokenFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("problem");

    QTest::newRow("not JSON") << QByteArray(R"({"cases": [)") << "valid JSON";
    QTest::newRow("no cases") << QByteArray(R"({"runs": []})") << "cases";
    QTest::newRow("unknown schedule") << QByteArray(R"({"cases": [{"schedule": "2F2B", "device_assignment": [0],
        "microbatches": [{"fw_us_per_layer": 1, "bw_us_per_layer": 2, "stored_mb_per_layer": 1,
        "peak_mb_per_layer": 2}]}]})") << "2F2B";
}

void TestTimelineSources::reportsBrokenFiles()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, problem);

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken-cases.json"));
    QVERIFY(stratex::test::writeTestFile(path, content));

    TimelineSources sources;
    QSignalSpy failed(&sources, &TimelineSources::failed);
    QSignalSpy sourcesChanged(&sources, &TimelineSources::sourcesChanged);
    QSignalSpy documents(&sources, &TimelineSources::documentReady);
    QString error;
    QVERIFY2(sources.openCasesFile(path, &error), qPrintable(error));
    settle(sources);

    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).value<TimelineSources::Job>(), TimelineSources::Job::Load);
    const QString message = failed.at(0).at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("broken-cases.json")), qPrintable(message));
    QVERIFY2(message.contains(problem), qPrintable(message));
    QCOMPARE(sourcesChanged.count(), 0);
    QCOMPARE(documents.count(), 0);
    QVERIFY(sources.sources().empty());
    QVERIFY(!sources.selection());
}

void TestTimelineSources::reportsUnreadableFiles_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing") << "/nonexistent/stratex/missing-cases.json"
                             << "cannot open file";
    // Read on the GUI thread: a device must be refused, not read for ever.
    QTest::newRow("device") << "/dev/zero"
                            << "expected a regular file, found a device";
    QTest::newRow("directory") << "/"
                               << "expected a regular file, found a directory";
}

void TestTimelineSources::reportsUnreadableFiles()
{
    QFETCH(QString, path);
    QFETCH(QString, message);
    TimelineSources sources;
    QSignalSpy failed(&sources, &TimelineSources::failed);
    QString error;
    QVERIFY(!sources.openCasesFile(path, &error));
    QVERIFY2(error.startsWith(path + ": " + message), qPrintable(error));
    settle(sources);
    QCOMPARE(failed.count(), 0); // told directly, not by a job
    QVERIFY(sources.sources().empty());
}

void TestTimelineSources::addedTimelinesBecomeSources()
{
    TimelineSources sources;
    QVERIFY(openExample(sources));
    const std::vector<TimelineSource> before = sources.sources();
    const TimelineRequest a = request(QStringLiteral("planner plan A"));
    const TimelineRequest b = request(QStringLiteral("planner plan B"));
    QSignalSpy sourcesChanged(&sources, &TimelineSources::sourcesChanged);

    // Requests are shown at once: the first compared with the second.
    sources.showRequests({ a, b });
    settle(sources);
    QCOMPARE(sourcesChanged.count(), 1);
    QCOMPARE(sources.names(), (exampleNames() + QStringList { a.name, b.name }));
    QVERIFY(sources.selection() == (TimelineSelection { idAt(sources, 4), idAt(sources, 5) }));
    QCOMPARE(planNames(*sources.document()), (QStringList { a.name, b.name }));
    const TimelinePlanView& shown = sources.document()->plans[0];
    QCOMPARE(shown.timeline.makespan_us, a.timeline->makespan_us);
    QCOMPARE(shown.memoryLimitMb, a.memoryLimitMb);

    // A further timeline joins the list without taking over what is shown.
    const TimelineSourceId c = sources.addTimeline(request(QStringLiteral("search plan")));
    settle(sources);
    QCOMPARE(sourcesChanged.count(), 2);
    QCOMPARE(sources.names().last(), QStringLiteral("search plan"));
    QCOMPARE(planNames(*sources.document()), (QStringList { a.name, b.name }));
    // ... until selected, compared with a simulated case.
    sources.select({ c, before[2].id });
    settle(sources);
    QCOMPARE(planNames(*sources.document()), (QStringList { QStringLiteral("search plan"), exampleNames()[2] }));

    // Ids stay with their sources while sources are added.
    for (std::size_t i = 0; i < before.size(); ++i) {
        QVERIFY(sources.sources()[i].id == before[i].id);
        QCOMPARE(sources.sources()[i].name, before[i].name);
    }
}

void TestTimelineSources::firstAddedTimelineIsShown()
{
    TimelineSources sources;
    QSignalSpy selectionChanged(&sources, &TimelineSources::selectionChanged);
    const TimelineSourceId id = sources.addTimeline(request(QStringLiteral("alone")));
    settle(sources);
    QCOMPARE(selectionChanged.count(), 1);
    QVERIFY(sources.selection() == (TimelineSelection { id, std::nullopt }));
    QVERIFY(sources.document());
    QCOMPARE(planNames(*sources.document()), QStringList { QStringLiteral("alone") });

    // A single request: one plan, no comparison.
    sources.showRequests({ request(QStringLiteral("next")) });
    settle(sources);
    QVERIFY(!sources.selection()->second);
    QCOMPARE(planNames(*sources.document()), QStringList { QStringLiteral("next") });
}

void TestTimelineSources::exportsTheShownPlans()
{
    TimelineSources sources;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("timeline.trace.json"));
    QVERIFY(!sources.exportChromeTrace(path)); // nothing shown yet

    QVERIFY(openExample(sources));
    QSignalSpy exported(&sources, &TimelineSources::traceExported);
    QVERIFY(sources.exportChromeTrace(path));
    settle(sources);
    QCOMPARE(exported.count(), 1);
    QCOMPARE(exported.at(0).at(0).toString(), path);
    QFile trace(path);
    QVERIFY(trace.open(QIODevice::ReadOnly));
    const QByteArray json = trace.readAll();
    for (const TimelinePlanView& plan : sources.document()->plans)
        QVERIFY(json.contains(plan.name.toUtf8()));

    // A file that cannot be written is reported as the export's failure.
    QSignalSpy failed(&sources, &TimelineSources::failed);
    QVERIFY(sources.exportChromeTrace(QStringLiteral("/nonexistent/stratex/timeline.trace.json")));
    settle(sources);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).value<TimelineSources::Job>(), TimelineSources::Job::Export);
}

QTEST_GUILESS_MAIN(TestTimelineSources)
#include "tst_timeline_sources.moc"
