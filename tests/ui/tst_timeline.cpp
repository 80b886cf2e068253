// SPDX-License-Identifier: GPL-3.0-or-later
// The pipeline Gantt: time<->pixel mapping, culling, keys (W/S/A/D/0), Ctrl+wheel around the
// cursor, drag, hover, click-to-highlight, grab; the Timeline page on the bundled example and
// on DynaPipe's ground-truth cases.
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include "core/sim/simulator.h"
#include "ui/main_window.h"
#include "ui/timeline/timeline_legend.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/timeline_zoom.h"

#include "controllers/timeline_document.h"
#include "gui_test_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::sim;
using namespace stratex::ui;
using namespace stratex::controllers;

Q_DECLARE_METATYPE(stratex::ui::TimeRange)

namespace {

// p devices, one layer each, m identical micro-batches.
SimulationInput uniformInput(int devices, int microbatches, double fw_us, double bw_us)
{
    SimulationInput input;
    for (int d = 0; d < devices; ++d)
        input.device_assignment.push_back(d);
    for (int m = 0; m < microbatches; ++m) {
        MicrobatchSpec mb;
        mb.id = m;
        LayerCost layer;
        layer.fw_us = fw_us;
        layer.bw_us = bw_us;
        layer.stored_mb = 100;
        layer.peak_mb = 150;
        mb.layers.assign(std::size_t(devices), layer);
        input.microbatches.push_back(mb);
    }
    return input;
}

std::shared_ptr<const TimelineDocument> uniformDocument(ScheduleKind schedule = ScheduleKind::OneFOneB)
{
    auto document = std::make_shared<TimelineDocument>();
    SimulationResult result = simulate(uniformInput(4, 8, 1000, 2000), schedule);
    document->plans.push_back(makeTimelinePlanView(QStringLiteral("uniform"), std::move(result.timeline)));
    return document;
}

std::vector<TimelineOp> laneOf(std::initializer_list<std::pair<double, double>> spans)
{
    std::vector<TimelineOp> ops;
    int id = 0;
    for (const auto& [start, duration] : spans) {
        TimelineOp op;
        op.start_us = start;
        op.duration_us = duration;
        op.microbatch = id++;
        ops.push_back(op);
    }
    return ops;
}

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void zoomMapping_data();
    void zoomMapping();
    void zoomAroundKeepsAnchor_data();
    void zoomAroundKeepsAnchor();
    void visibleOpsMatchBruteForce_data();
    void visibleOpsMatchBruteForce();
    void analyticMakespanShown();
    void keysZoomAndPan();
    void ctrlWheelZoomsAroundCursor();
    void dragPans();
    void hoverAndClickHighlight();
    void grabShowsOps();
    void pageShowsBundledExample();
    void pageOpensGroundTruthCases();
    void pageShowsDualPipeV();
    void pageReportsBadFiles_data();
    void pageReportsBadFiles();
    void pageExportsImages();
    void legendShowsEveryShade_data();
    void legendShowsEveryShade();
};

void TestTimeline::zoomMapping_data()
{
    QTest::addColumn<TimeRange>("visible");
    QTest::addColumn<double>("time");
    QTest::addColumn<double>("x");
    // Trace 0..10000 µs on a 1000-pixel track.
    QTest::newRow("minTime") << TimeRange { 0, 10000 } << 0.0 << 0.0;
    QTest::newRow("halfTime") << TimeRange { 0, 10000 } << 5000.0 << 500.0;
    QTest::newRow("maxTime") << TimeRange { 0, 10000 } << 10000.0 << 1000.0;
    QTest::newRow("zoom-second-half-start") << TimeRange { 5000, 10000 } << 5000.0 << 0.0;
    QTest::newRow("zoom-second-half-mid") << TimeRange { 5000, 10000 } << 7500.0 << 500.0;
    QTest::newRow("zoom-second-half-before") << TimeRange { 5000, 10000 } << 2500.0 << -500.0;
}

void TestTimeline::zoomMapping()
{
    QFETCH(TimeRange, visible);
    QFETCH(double, time);
    QFETCH(double, x);
    TimelineZoom zoom;
    zoom.setTrace({ 0, 10000 });
    zoom.setVisible(visible);
    QCOMPARE(zoom.visible(), visible);
    QCOMPARE(zoom.mapTimeToX(time, 1000), x);
    QVERIFY(qAbs(zoom.mapXToTime(x, 1000) - time) < 1e-9);
}

void TestTimeline::zoomAroundKeepsAnchor_data()
{
    QTest::addColumn<double>("anchor");
    QTest::addColumn<double>("factor");
    QTest::addColumn<double>("expectedSpan");
    QTest::newRow("in-2x-middle") << 5000.0 << 2.0 << 5000.0;
    QTest::newRow("in-4x-early") << 1000.0 << 4.0 << 2500.0;
    QTest::newRow("in-huge-clamps-to-1us") << 3000.0 << 1e9 << 1.0;
    QTest::newRow("out-clamps-to-trace") << 3000.0 << 0.1 << 10000.0;
}

void TestTimeline::zoomAroundKeepsAnchor()
{
    QFETCH(double, anchor);
    QFETCH(double, factor);
    QFETCH(double, expectedSpan);
    TimelineZoom zoom;
    zoom.setTrace({ 0, 10000 });
    const double before = zoom.mapTimeToX(anchor, 1000);
    zoom.zoomAround(anchor, factor);
    QCOMPARE(zoom.visible().span(), expectedSpan);
    if (expectedSpan < 10000)
        QVERIFY(qAbs(zoom.mapTimeToX(anchor, 1000) - before) < 1e-6);
    QVERIFY(zoom.visible().start_us >= 0 && zoom.visible().end_us <= 10000);
    zoom.panBy(-1e9); // far past the start: clamped
    QCOMPARE(zoom.visible().start_us, 0.0);
}

void TestTimeline::visibleOpsMatchBruteForce_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::newRow("all") << -1.0 << 1000.0;
    QTest::newRow("middle") << 25.0 << 55.0;
    QTest::newRow("touching-end") << 20.0 << 20.0;
    QTest::newRow("gap") << 31.0 << 39.0;
    QTest::newRow("after") << 500.0 << 600.0;
}

void TestTimeline::visibleOpsMatchBruteForce()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    const std::vector<TimelineOp> lane
        = laneOf({ { 0, 10 }, { 10, 10 }, { 20, 10 }, { 40, 15 }, { 60, 1 }, { 100, 50 } });
    const auto [first, last] = visibleOps(lane, t0, t1);
    std::vector<int> expected;
    for (const TimelineOp& op : lane) {
        if (op.endUs() >= t0 && op.start_us <= t1)
            expected.push_back(op.microbatch);
    }
    std::vector<int> actual;
    for (std::size_t i = first; i < last; ++i)
        actual.push_back(lane[i].microbatch);
    QCOMPARE(actual, expected);
}

void TestTimeline::analyticMakespanShown()
{
    // 1F1B with uniform micro-batches: (m + p - 1) (tf + tb) = 11 * 3000 µs.
    const auto document = uniformDocument();
    QCOMPARE(document->makespanUs(), 33000.0);
    TimelineWidget widget;
    widget.setDocument(document);
    QCOMPARE(widget.zoom().trace(), (TimeRange { 0, 33000 }));
}

void TestTimeline::keysZoomAndPan()
{
    TimelineWidget widget;
    widget.resize(1000, 500);
    widget.setDocument(uniformDocument());
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    const double full = widget.zoom().visible().span();
    QTest::keyClick(&widget, Qt::Key_W);
    QVERIFY(qAbs(widget.zoom().visible().span() - full / 1.5) < 1e-6);
    QTest::keyClick(&widget, Qt::Key_W);
    const TimeRange zoomed = widget.zoom().visible();
    QTest::keyClick(&widget, Qt::Key_D);
    QVERIFY(qAbs(widget.zoom().visible().start_us - (zoomed.start_us + 0.2 * zoomed.span())) < 1e-6);
    QTest::keyClick(&widget, Qt::Key_A);
    QVERIFY(qAbs(widget.zoom().visible().start_us - zoomed.start_us) < 1e-6);
    QTest::keyClick(&widget, Qt::Key_S);
    QVERIFY(widget.zoom().visible().span() > zoomed.span());
    QVERIFY(widget.horizontalScrollBar()->maximum() > 0);
    QTest::keyClick(&widget, Qt::Key_0);
    QVERIFY(widget.zoom().isFitted());
    QCOMPARE(widget.horizontalScrollBar()->maximum(), 0);
}

void TestTimeline::ctrlWheelZoomsAroundCursor()
{
    TimelineWidget widget;
    widget.resize(1000, 500);
    widget.setDocument(uniformDocument());
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    const QPoint cursor(700, 100);
    const double anchor = widget.zoom().mapXToTime(
        cursor.x() - TimelineGeometry::kLabelWidth, widget.viewport()->width() - TimelineGeometry::kLabelWidth);
    QWheelEvent wheel(QPointF(cursor), QPointF(widget.viewport()->mapToGlobal(cursor)), QPoint(), QPoint(0, 240),
        Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget.viewport(), &wheel);
    QVERIFY(qAbs(widget.zoom().visible().span() - 33000 / 1.5625) < 1e-6);
    QVERIFY(qAbs(widget.xOfTime(anchor) - cursor.x()) < 1e-6);
}

void TestTimeline::dragPans()
{
    TimelineWidget widget;
    widget.resize(1000, 500);
    widget.setDocument(uniformDocument());
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.zoomAround(16500, 4);
    const TimeRange before = widget.zoom().visible();
    QTest::mousePress(widget.viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(600, 100));
    QTest::mouseMove(widget.viewport(), QPoint(500, 100));
    QTest::mouseRelease(widget.viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(500, 100));
    const double perPixel = before.span() / (widget.viewport()->width() - TimelineGeometry::kLabelWidth);
    QVERIFY(qAbs(widget.zoom().visible().start_us - (before.start_us + 100 * perPixel)) < 1e-6);
    QCOMPARE(widget.selectedMicrobatch(), -1); // a drag is not a click
}

void TestTimeline::hoverAndClickHighlight()
{
    TimelineWidget widget;
    widget.resize(1000, 500);
    const auto document = uniformDocument();
    widget.setDocument(document);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    // The forward of micro-batch 2 on device 1 starts at (1 + 2) * 1000 µs in 1F1B's warm-up.
    const TimelineOp& op = document->plans[0].timeline.devices[1].compute[2];
    QCOMPARE(op.kind, OpKind::Forward);
    QCOMPARE(op.microbatch, 2);
    const QPoint point = widget.viewportPointOf(0, 1, TimelineLane::Compute, op.start_us + op.duration_us / 2);
    const auto hit = widget.opAt(point);
    QVERIFY(hit);
    QCOMPARE(hit->device, 1);
    QCOMPARE(hit->op.microbatch, 2);
    const QString tip = widget.toolTipFor(*hit);
    QVERIFY2(tip.contains(QStringLiteral("Forward")) && tip.contains(QStringLiteral("micro-batch 2")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("duration 1.000 ms")));

    QSignalSpy selected(&widget, &TimelineWidget::microbatchSelected);
    QTest::mouseClick(widget.viewport(), Qt::LeftButton, Qt::NoModifier, point);
    QCOMPARE(widget.selectedMicrobatch(), 2);
    QCOMPARE(selected.count(), 1);
    // Highlighted on every device: the same micro-batch keeps its colour, others are dimmed.
    const QImage image = widget.viewport()->grab().toImage();
    const TimelineOp& sameOnDevice3 = document->plans[0].timeline.devices[3].compute[4];
    QCOMPARE(sameOnDevice3.microbatch, 2);
    const QPoint samePoint = widget.viewportPointOf(0, 3, TimelineLane::Compute, sameOnDevice3.start_us + 100);
    QCOMPARE(image.pixelColor(samePoint + QPoint(0, -6)).rgb(), timelineOpColor(sameOnDevice3).rgb());
    const TimelineOp& other = document->plans[0].timeline.devices[3].compute[0];
    const QPoint otherPoint = widget.viewportPointOf(0, 3, TimelineLane::Compute, other.start_us + 100);
    QVERIFY(image.pixelColor(otherPoint + QPoint(0, -6)).rgb() != timelineOpColor(other).rgb());
    QTest::keyClick(&widget, Qt::Key_Escape);
    QCOMPARE(widget.selectedMicrobatch(), -1);
}

void TestTimeline::grabShowsOps()
{
    TimelineWidget widget;
    widget.resize(1000, 500);
    const auto document = uniformDocument(ScheduleKind::WaitFreeCyclic);
    widget.setDocument(document);
    const QImage image = widget.viewport()->grab().toImage();
    for (int d = 0; d < 4; ++d) {
        const TimelineOp& op = document->plans[0].timeline.devices[std::size_t(d)].compute.back();
        const QPoint point = widget.viewportPointOf(0, d, TimelineLane::Compute, op.start_us + op.duration_us / 2);
        QCOMPARE(image.pixelColor(point + QPoint(0, -6)).rgb(), timelineOpColor(op).rgb());
    }
    QVERIFY(stratex::test::distinctColours(image) >= 8);
}

void TestTimeline::pageShowsBundledExample()
{
    MainWindow window(MainWindow::Options { false });
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.setCurrentPage(QStringLiteral("timeline")));
    QVERIFY(stratex::test::waitUntilIdle(window));
    auto* page = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    QCOMPARE(page->firstPlanBox()->count(), 4);
    QVERIFY(page->timeline()->document());
    QCOMPARE(int(page->timeline()->document()->plans.size()), 2);
    QVERIFY(page->summaryText().contains(QStringLiteral("second vs first")));
    // Compare with ZB-H1 instead: re-simulated on a worker.
    page->secondPlanBox()->setCurrentIndex(3);
    QVERIFY(stratex::test::waitUntilIdle(window));
    QVERIFY(page->timeline()->document()->plans[1].name.contains(QStringLiteral("ZB-H1")));
    bool hasWeightOps = false;
    for (const auto& device : page->timeline()->document()->plans[1].timeline.devices) {
        for (const TimelineOp& op : device.compute)
            hasWeightOps = hasWeightOps || op.kind == OpKind::Weight;
    }
    QVERIFY(hasWeightOps);
    QVERIFY(window.grab().toImage().save(QDir::temp().filePath(QStringLiteral("stratex-tst-timeline.png"))));
}

void TestTimeline::legendShowsEveryShade_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("narrow");
    const std::pair<OpKind, const char*> kinds[] = { { OpKind::Forward, "forward" }, { OpKind::Backward, "backward" },
        { OpKind::Weight, "weight" }, { OpKind::Send, "send" }, { OpKind::Recv, "receive" } };
    for (const auto& [kind, name] : kinds) {
        QTest::addRow("%s-wide", name) << int(kind) << false;
        QTest::addRow("%s-minimum-width", name) << int(kind) << true;
    }
}

// The ops of one kind come in kTimelineShades shades, one per micro-batch in turn: the legend shows
// every one of them, at any window width (it wraps instead of clipping).
void TestTimeline::legendShowsEveryShade()
{
    QFETCH(int, kind);
    QFETCH(bool, narrow);
    MainWindow window(MainWindow::Options { false });
    window.resize(narrow ? window.minimumSizeHint().width() : 1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.setCurrentPage(QStringLiteral("timeline")));
    auto* legend
        = window.page(QStringLiteral("timeline"))->findChild<TimelineLegend*>(QStringLiteral("timelineLegend"));
    QVERIFY(legend);
    QVERIFY(legend->height() >= legend->heightForWidth(legend->width()));
    QSet<QRgb> drawn;
    const QImage image = legend->grab().toImage();
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            drawn.insert(image.pixel(x, y));
    }
    QSet<QRgb> shades;
    for (int microbatch = 0; microbatch < kTimelineShades; ++microbatch) {
        const QRgb shade = timelineOpColor(OpKind(kind), microbatch).rgb();
        shades.insert(shade);
        QVERIFY2(drawn.contains(shade), qPrintable(QStringLiteral("shade %1 not in the legend").arg(microbatch)));
    }
    QCOMPARE(int(shades.size()), kTimelineShades); // four different colours, not one four times
    QVERIFY(legend->toolTip().contains(QString::number(kTimelineShades)));
}

void TestTimeline::pageOpensGroundTruthCases()
{
    MainWindow window(MainWindow::Options { false });
    QVERIFY(stratex::test::waitUntilIdle(window));
    const QString path = stratex::test::fixture(QStringLiteral("dynapipe/schedule_ground_truth.json"));
    QString error;
    QVERIFY2(window.openFile(path, &error), qPrintable(error));
    QVERIFY(stratex::test::waitUntilIdle(window));
    auto* page = qobject_cast<TimelinePage*>(window.currentPage());
    QVERIFY(page);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray cases = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("cases")).toArray();
    QCOMPARE(page->firstPlanBox()->count(), 4 + cases.size());
    // The first ground-truth case is shown first; its makespan is DynaPipe's.
    const double expected = cases.at(0).toObject().value(QStringLiteral("makespan_us")).toDouble();
    QCOMPARE(page->timeline()->document()->plans[0].timeline.makespan_us, expected);
}

// A DualPipeV case on a V placement: eight stages, the turn device holding both chunks without a
// transfer between them, drawn with its weight-gradient ops (stratex-tst-timeline-dualpipev.png).
void TestTimeline::pageShowsDualPipeV()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("v.json"));
    QByteArray microbatches;
    for (int j = 0; j < 10; ++j) {
        const int fw = 800 + 70 * ((j * 7) % 9);
        microbatches += (j ? "," : "") + QByteArray(R"({"fw_us_per_layer":)") + QByteArray::number(fw)
            + R"(,"bw_us_per_layer":)" + QByteArray::number(2 * fw)
            + R"(,"stored_mb_per_layer":100,"peak_mb_per_layer":200})";
    }
    QVERIFY(stratex::test::writeTestFile(path,
        R"({"cases":[{"schedule":"DualPipeV","device_assignment":[0,1,2,3,3,2,1,0],"microbatches":[)" + microbatches
            + "]}]}"));
    MainWindow window(MainWindow::Options { false });
    window.resize(1200, 700);
    window.show();
    QVERIFY(stratex::test::waitUntilIdle(window));
    QString error;
    QVERIFY2(window.openFile(path, &error), qPrintable(error));
    QVERIFY(stratex::test::waitUntilIdle(window));
    auto* page = qobject_cast<TimelinePage*>(window.currentPage());
    QVERIFY(page);
    const auto& plan = page->timeline()->document()->plans[0];
    QCOMPARE(plan.timeline.devices.size(), std::size_t(4));
    int weights = 0;
    for (const auto& device : plan.timeline.devices) {
        for (const auto& op : device.compute)
            weights += op.kind == sim::OpKind::Weight;
        for (const auto& op : device.comm)
            QVERIFY(op.peer != device.device); // no transfer at the turn
    }
    QCOMPARE(weights, 4 * 2 * 10); // a W per chunk and micro-batch
    QVERIFY(window.grab().toImage().save(QDir::temp().filePath(QStringLiteral("stratex-tst-timeline-dualpipev.png"))));
}

// A cases file that cannot be loaded: a message box names the file and the JSON key.
void TestTimeline::pageReportsBadFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("message"); // after "<file>: "
    QTest::newRow("not JSON") << QByteArray("{\"cases\": [") << "expected valid JSON";
    QTest::newRow("unknown schedule") << QByteArray(
        R"({"cases":[{"schedule":"zigzag","device_assignment":[0],"microbatches":[]}]})")
                                      << "/cases/0/schedule: expected a schedule name";
    QTest::newRow("time beyond the limit")
        << QByteArray(R"({"cases":[{"schedule":"GPipe","device_assignment":[0],
        "microbatches":[{"fw_us_per_layer":1e300,"bw_us_per_layer":1,"stored_mb_per_layer":1,"peak_mb_per_layer":1}]}]})")
        << "/cases/0/microbatches/0/fw_us_per_layer: expected a time from 0 to 1e9 us";
}

void TestTimeline::pageReportsBadFiles()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("cases.json"));
    QVERIFY(stratex::test::writeTestFile(path, content));
    MainWindow window(MainWindow::Options { false });
    QVERIFY(stratex::test::waitUntilIdle(window));
    QString error;
    QVERIFY2(window.openFile(path, &error), qPrintable(error)); // read at once; parsed by a job
    QVERIFY(stratex::test::waitUntilIdle(window));
    QMessageBox* box = nullptr;
    for (QMessageBox* candidate : window.findChildren<QMessageBox*>()) {
        if (candidate->isVisible())
            box = candidate;
    }
    QVERIFY(box);
    QVERIFY2(box->text().startsWith(path + QStringLiteral(": ") + message), qPrintable(box->text()));
}

void TestTimeline::pageExportsImages()
{
    MainWindow window(MainWindow::Options { false });
    window.resize(1200, 800);
    window.show();
    window.setCurrentPage(QStringLiteral("timeline"));
    QVERIFY(stratex::test::waitUntilIdle(window));
    auto* page = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    QTemporaryDir dir;
    QString error;
    const QString png = dir.filePath(QStringLiteral("timeline.png"));
    QVERIFY2(page->exportImage(png, &error), qPrintable(error));
    const QImage image(png);
    // The timeline, and its legend under it (tst_timeline_reading).
    QCOMPARE(image.width(), page->timeline()->renderSize().width());
    QVERIFY(image.height() > page->timeline()->renderSize().height());
    QVERIFY(stratex::test::distinctColours(image) >= 10);
    const QString svg = dir.filePath(QStringLiteral("timeline.svg"));
    QVERIFY2(page->exportImage(svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("<svg"));

    // Both shown plans as one Chrome trace: X slices on a shared time axis, a process per device.
    QSignalSpy exported(page, &TimelinePage::traceExported);
    const QString trace = dir.filePath(QStringLiteral("timeline.trace.json"));
    page->exportChromeTrace(trace);
    QVERIFY(exported.wait(10000));
    QFile traceFile(trace);
    QVERIFY(traceFile.open(QIODevice::ReadOnly));
    const QJsonArray events
        = QJsonDocument::fromJson(traceFile.readAll()).object().value(QStringLiteral("traceEvents")).toArray();
    int slices = 0;
    QSet<int> processes;
    for (const QJsonValue& event : events) {
        if (event.toObject().value(QStringLiteral("ph")).toString() == QLatin1String("X")) {
            ++slices;
            processes.insert(event.toObject().value(QStringLiteral("pid")).toInt());
        }
    }
    QCOMPARE(std::size_t(slices), page->timeline()->document()->opCount());
    QCOMPARE(processes.size(), 8); // two plans of four devices
}

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
