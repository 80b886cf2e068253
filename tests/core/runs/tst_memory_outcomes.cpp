// SPDX-License-Identifier: GPL-3.0-or-later
// runs::memoryOutcomes (issue 23): the fit check against what each run did, both ways: a run that
// trained called out of memory, and a run that went out of memory called fitting.
#include <QtTest>

#include "core/runs/memory_outcomes.h"

using namespace stratex::runs;

class TestMemoryOutcomes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void outcomes_data()
    {
        QTest::addColumn<bool>("trained");
        QTest::addColumn<bool>("predictedOom");
        QTest::addColumn<int>("trainedCalledOom");
        QTest::addColumn<int>("oomCalledFitting");
        QTest::addColumn<QString>("line"); // memoryOutcomeLine
        QTest::newRow("trained, fits") << true << false << 0 << 0 << QString();
        QTest::newRow("trained, called out of memory")
            << true << true << 1 << 0
            << "trained (measured); predicted device peak 90.5 of 80.0 GiB: called out of memory (a miss)";
        QTest::newRow("out of memory, called so")
            << false << true << 0 << 0
            << "went out of memory (measured); predicted device peak 90.5 of 80.0 GiB: called out of memory (agrees)";
        QTest::newRow("out of memory, called fitting")
            << false << false << 0 << 1
            << "went out of memory (measured); predicted device peak 90.5 of 80.0 GiB: called fitting (a miss)";
    }
    void outcomes()
    {
        QFETCH(bool, trained);
        QFETCH(bool, predictedOom);
        QFETCH(int, trainedCalledOom);
        QFETCH(int, oomCalledFitting);
        QFETCH(QString, line);
        const MemoryOutcomeRow row { "run", trained, predictedOom, 90.54, 80.0 };
        // Beside one run of each kind that the check gets right.
        const MemoryOutcomeRow fits { "fits", true, false, 40, 80 };
        const MemoryOutcomeRow oom { "oom", false, true, 120, 80 };
        const MemoryOutcomes o = memoryOutcomes({ fits, row, oom });
        QCOMPARE(o.trained, trained ? 2 : 1);
        QCOMPARE(o.out_of_memory, trained ? 1 : 2);
        QCOMPARE(int(o.trained_called_oom.size()), trainedCalledOom);
        QCOMPARE(int(o.oom_called_fitting.size()), oomCalledFitting);
        for (const auto* misses : { &o.trained_called_oom, &o.oom_called_fitting })
            for (const MemoryOutcomeRow& miss : *misses)
                QCOMPARE(QString::fromStdString(miss.id), QStringLiteral("run"));
        QCOMPARE(QString::fromStdString(memoryOutcomeLine(row)), line);
        const QString text = QString::fromStdString(memoryOutcomesText(o));
        QVERIFY2(text.startsWith(QString("fit check against what the runs did: %1 runs trained, %2 of them called out "
                                         "of memory; %3 went out of memory, %4 of them called fitting\n")
                                     .arg(o.trained)
                                     .arg(trainedCalledOom)
                                     .arg(o.out_of_memory)
                                     .arg(oomCalledFitting)),
            qPrintable(text));
        QCOMPARE(text.contains("  went out of memory, called fitting: run (predicted device peak 90.5 of 80.0 GiB)"),
            oomCalledFitting == 1);
        QCOMPARE(text.contains("  trained, called out of memory: run (predicted device peak 90.5 of 80.0 GiB)"),
            trainedCalledOom == 1);
    }
};

QTEST_GUILESS_MAIN(TestMemoryOutcomes)
#include "tst_memory_outcomes.moc"
