// SPDX-License-Identifier: GPL-3.0-or-later
// core/common/plan_figures.h: the one definition of the bubble, the iteration against the
// makespan and the peak memory with and without the reserve (issue 24 finding 6: one plan showed
// three bubbles, "57.181 s/iteration" next to "makespan 57146.76 ms", and a peak with the reserve
// in the table but without it in the chart).
#include <QTest>

#include <set>
#include <string>
#include <vector>

#include "core/common/plan_figures.h"

using namespace stratex;
using figures::Figure;

class TestPlanFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bubble_data();
    void bubble();
    void bubbleFromIdle_data();
    void bubbleFromIdle();
    void iteration_data();
    void iteration();
    void peak_data();
    void peak();
    void texts_data();
    void texts();
    void labelsDistinct();
};

void TestPlanFigures::bubble_data()
{
    QTest::addColumn<double>("busiestMs");
    QTest::addColumn<double>("makespanMs");
    QTest::addColumn<double>("expected");
    QTest::newRow("1f1b pp4 m8: (p-1)/(m+p-1)") << 8.0 << 11.0 << 3.0 / 11.0;
    QTest::newRow("no bubble") << 10.0 << 10.0 << 0.0;
    QTest::newRow("no makespan") << 0.0 << 0.0 << 0.0;
    QTest::newRow("busy beyond the makespan (rounding) clamps to 0") << 10.5 << 10.0 << 0.0;
    QTest::newRow("negative makespan") << 1.0 << -1.0 << 0.0;
    QTest::newRow("idle device") << 0.0 << 5.0 << 1.0;
}

void TestPlanFigures::bubble()
{
    QFETCH(double, busiestMs);
    QFETCH(double, makespanMs);
    QFETCH(double, expected);
    QCOMPARE(figures::pipelineBubble(busiestMs, makespanMs), expected);
}

void TestPlanFigures::bubbleFromIdle_data()
{
    QTest::addColumn<std::vector<double>>("idle");
    QTest::addColumn<double>("expected");
    // The plan: devices idle 2.8 % (device 0), ..., the busiest 0.3 %: the bubble is 0.3 %,
    // not the mean (1.6 %) and not device 0's.
    QTest::newRow("the busiest device's") << std::vector<double> { 0.028, 0.011, 0.003, 0.022 } << 0.003;
    QTest::newRow("one device") << std::vector<double> { 0.25 } << 0.25;
    QTest::newRow("none") << std::vector<double> {} << 0.0;
    QTest::newRow("clamped") << std::vector<double> { -0.01, 0.5 } << 0.0;
}

void TestPlanFigures::bubbleFromIdle()
{
    QFETCH(std::vector<double>, idle);
    QFETCH(double, expected);
    QCOMPARE(figures::pipelineBubbleFromIdle(idle), expected);
}

void TestPlanFigures::iteration_data()
{
    QTest::addColumn<double>("iterationMs");
    QTest::addColumn<double>("pipelineMs");
    QTest::addColumn<double>("overheadMs");
    QTest::addColumn<double>("tailMs");
    QTest::addColumn<QString>("text");
    QTest::newRow("the issue's 57.181 s against 57146.76 ms")
        << 57181.0 << 57146.76 << 4.0 << 30.24
        << "An iteration, 57181.00 ms = pipeline makespan 57146.76 ms + exposed data-parallel communication and "
           "optimizer step 30.24 ms (the slowest stage's) + per-iteration overhead 4.00 ms.";
    QTest::newRow("no tail") << 100.0 << 100.0 << 0.0 << 0.0
                             << "An iteration, 100.00 ms = pipeline makespan 100.00 ms + exposed data-parallel "
                                "communication and optimizer step 0.00 ms (the slowest stage's) + per-iteration "
                                "overhead 0.00 ms.";
    // An iteration shorter than its parts (inconsistent input) keeps a tail of 0, never negative.
    QTest::newRow("tail never negative") << 90.0 << 100.0 << 0.0 << 0.0
                                         << "An iteration, 100.00 ms = pipeline makespan 100.00 ms + exposed "
                                            "data-parallel communication and optimizer step 0.00 ms (the slowest "
                                            "stage's) + per-iteration overhead 0.00 ms.";
}

void TestPlanFigures::iteration()
{
    QFETCH(double, iterationMs);
    QFETCH(double, pipelineMs);
    QFETCH(double, overheadMs);
    QFETCH(double, tailMs);
    QFETCH(QString, text);
    const figures::IterationParts parts = figures::iterationParts(iterationMs, pipelineMs, overheadMs);
    QCOMPARE(parts.pipeline_ms, pipelineMs);
    QCOMPARE(parts.overhead_ms, overheadMs);
    QVERIFY(qAbs(parts.tail_ms - tailMs) < 1e-9);
    if (tailMs > 0)
        QVERIFY(qAbs(figures::iterationMs(parts) - iterationMs) < 1e-9);
    QCOMPARE(QString::fromStdString(figures::iterationBreakdown(parts)), text);
}

void TestPlanFigures::peak_data()
{
    QTest::addColumn<double>("withReserveMb");
    QTest::addColumn<double>("reserveMb");
    QTest::addColumn<double>("plannedMb");
    // The first screen: Galvatron's 40,844 MB with the 8,192 MB reserve of a 40 GB GPU is a planned
    // 32,652 MB, under the search's limit of 32,768 MB.
    QTest::newRow("first screen") << 40844.0 << 8192.0 << 32652.0;
    QTest::newRow("no reserve (<= 20 GB)") << 16000.0 << 0.0 << 16000.0;
    QTest::newRow("never negative") << 100.0 << 8192.0 << 0.0;
}

void TestPlanFigures::peak()
{
    QFETCH(double, withReserveMb);
    QFETCH(double, reserveMb);
    QFETCH(double, plannedMb);
    QCOMPARE(figures::plannedPeakMb(withReserveMb, reserveMb), plannedMb);
    if (plannedMb > 0)
        QCOMPARE(figures::peakWithReserveMb(plannedMb, reserveMb), withReserveMb);
}

void TestPlanFigures::texts_data()
{
    QTest::addColumn<int>("figure");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("header");
    QTest::addColumn<QString>("toolTipMentions");
    QTest::newRow("bubble") << int(Figure::PipelineBubble) << "Bubble" << "Bubble (%)" << "busiest device";
    QTest::newRow("makespan") << int(Figure::PipelineMakespan) << "Pipeline makespan" << "Pipeline makespan (ms)"
                              << "bubbles included";
    QTest::newRow("iteration") << int(Figure::IterationTime) << "Iteration" << "Iteration (s)"
                               << "pipeline makespan + exposed data-parallel";
    QTest::newRow("planned peak") << int(Figure::PlannedPeak) << "Planned peak" << "Planned peak (MB)"
                                  << "without the allocator's reserve";
    QTest::newRow("with reserve") << int(Figure::PeakWithReserve) << "Peak incl. reserve" << "Peak incl. reserve (GiB)"
                                  << "planned peak plus the allocator's reserve";
}

void TestPlanFigures::texts()
{
    QFETCH(int, figure);
    QFETCH(QString, label);
    QFETCH(QString, header);
    QFETCH(QString, toolTipMentions);
    const auto f = Figure(figure);
    QCOMPARE(QString::fromUtf8(figures::label(f).data(), qsizetype(figures::label(f).size())), label);
    const QString unit = header.section(QLatin1Char('('), 1).chopped(1);
    QCOMPARE(QString::fromStdString(figures::header(f, unit.toStdString())), header);
    const QString tip = QString::fromUtf8(figures::toolTip(f).data(), qsizetype(figures::toolTip(f).size()));
    // A tooltip starts with its label, so the reader sees which number it explains.
    QVERIFY2(tip.startsWith(label + QLatin1Char(':')), qPrintable(tip));
    QVERIFY2(tip.contains(toolTipMentions), qPrintable(tip));
}

void TestPlanFigures::labelsDistinct()
{
    std::set<std::string_view> labels;
    for (Figure f : { Figure::PipelineBubble, Figure::PipelineMakespan, Figure::IterationTime, Figure::PlannedPeak,
             Figure::PeakWithReserve })
        labels.insert(figures::label(f));
    QCOMPARE(labels.size(), std::size_t(5));
}

QTEST_APPLESS_MAIN(TestPlanFigures)
#include "tst_plan_figures.moc"
