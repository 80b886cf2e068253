// SPDX-License-Identifier: GPL-3.0-or-later
// The Timeline page with an imported measured run (tests/data/measured: a Megatron-LM log and the
// PyTorch-profiler traces of ranks 0 and 8): each pipeline stage's measured lane is drawn directly
// above its predicted lane, the rows named with the difference; a run that cannot be costed is
// reported, not drawn.
#include <QtTest>

#include <QComboBox>
#include <QDir>
#include <QPushButton>

#include "controllers/measured_run_import.h"
#include "controllers/timeline_document.h"
#include "gui_test_helpers.h"
#include "support/test_paths.h"
#include "ui/main_window.h"
#include "ui/timeline/timeline_geometry.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_widget.h"

using namespace stratex;
using namespace stratex::ui;

namespace {

const QString kLog = test::fixture(QStringLiteral("measured/megatron-llama2-7b-tp2-pp2-dp4.log"));
const QString kTraces = test::fixture(QStringLiteral("measured/pytorch-trace-llama2-7b-tp2-pp2-dp4"));

} // namespace

class TestTimelineMeasured : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void measuredLanesAbovePredicted()
    {
        MainWindow window(MainWindow::Options { false });
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.setCurrentPage(QStringLiteral("timeline")));
        QVERIFY(test::waitUntilIdle(window));
        auto* page = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
        QVERIFY(page->findChild<QPushButton*>(QStringLiteral("openMeasuredRun")));
        page->measuredRuns()->import({ kLog, kTraces }, std::nullopt, 8);
        QVERIFY(test::waitUntilIdle(window));

        QVERIFY(page->measuredRuns()->comparison());
        QVERIFY(page->firstPlanBox()->currentText().contains(QStringLiteral("measured over predicted")));
        const auto document = page->timeline()->document();
        QVERIFY(document);
        QCOMPARE(int(document->plans.size()), 1);
        const controllers::TimelinePlanView& plan = document->plans.front();
        QCOMPARE(plan.deviceCount(), 4); // stage 0 measured, predicted; stage 1 measured, predicted
        QCOMPARE(plan.deviceLabels.size(), 4);
        QCOMPARE(plan.deviceLabels[0], QStringLiteral("stage 0 · measured, rank 0"));
        QVERIFY2(plan.deviceLabels[1].startsWith(QStringLiteral("stage 0 · predicted ")), qPrintable(plan.deviceLabels[1]));
        QVERIFY(plan.deviceLabels[1].endsWith(QStringLiteral(" %")));
        QCOMPARE(plan.deviceLabels[2], QStringLiteral("stage 1 · measured, rank 8"));
        // Measured: rank 0's forward kernels, 16 micro-batches of 110 ms (GEMM and TP all-reduce;
        // back-to-back kernels of one kind are one interval); predicted: the simulator's 16 + 16 ops.
        double forwardUs = 0;
        for (const sim::TimelineOp& op : plan.timeline.devices[0].compute)
            forwardUs += op.kind == sim::OpKind::Forward ? op.duration_us : 0;
        QVERIFY2(qAbs(forwardUs / 1e3 - 16 * 110) < 1, qPrintable(QString::number(forwardUs)));
        QCOMPARE(int(plan.timeline.devices[1].compute.size()), 32);

        page->timeline()->fit();
        const QImage image = page->timeline()->viewport()->grab().toImage();
        QVERIFY(test::distinctColours(image) >= 8);
        for (int device : { 0, 1 }) {
            const sim::TimelineOp& op = plan.timeline.devices[std::size_t(device)].compute.front();
            const QPoint point
                = page->timeline()->viewportPointOf(0, device, TimelineLane::Compute, op.start_us + op.duration_us / 2);
            QVERIFY(image.rect().contains(point));
            QCOMPARE(image.pixelColor(point + QPoint(0, -6)).rgb(), timelineOpColor(op).rgb());
        }
        QVERIFY(window.grab().toImage().save(QDir::temp().filePath(QStringLiteral("stratex-tst-timeline-measured.png"))));
    }

    void uncostableRunIsReported()
    {
        MainWindow window(MainWindow::Options { false });
        window.show();
        QVERIFY(window.setCurrentPage(QStringLiteral("timeline")));
        QVERIFY(test::waitUntilIdle(window));
        auto* page = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
        QSignalSpy failed(page->measuredRuns(), &controllers::MeasuredRunImport::failed);
        const QString before = page->firstPlanBox()->currentText();
        page->measuredRuns()->import({ kTraces }, std::nullopt, 8); // traces alone: no model, no strategy
        QVERIFY(test::waitUntilIdle(window));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("num_layers")), qPrintable(message));
        QVERIFY(page->summaryText().contains(QStringLiteral("Cannot import the run")));
        QCOMPARE(page->firstPlanBox()->currentText(), before);
    }
};

QTEST_MAIN(TestTimelineMeasured)
#include "tst_timeline_measured.moc"
