// SPDX-License-Identifier: GPL-3.0-or-later
// The memory margin (core/megatron/memory_margin.h, docs/memory-model.md "Memory margin"): the
// bundled table of the model's largest under-prediction per framework is what the records give
// today, and a plan is "tight" exactly when its headroom is below that under-prediction.
#include <QtTest>

#include <map>

#include "core/hardware/hardware_model.h"
#include "core/megatron/memory_margin.h"
#include "core/runs/reference_run.h"

using namespace stratex;
using namespace stratex::megatron;

class TestMemoryMargin : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The table against `reference`'s memory errors over the bundled records; on a difference the
    // message is the table to paste into memory_margin.cpp.
    void bundledTableIsTheRecords()
    {
        const std::vector<runs::ReferenceRun> records
            = runs::readReferenceRuns(std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs");
        std::vector<runs::ReferenceComparison> comparisons;
        for (const runs::ReferenceRun& run : records)
            comparisons.push_back(runs::compareWithRun(run, hardware::efficiencyFor(run.cluster)));
        std::map<Framework, FrameworkMemoryError> found;
        for (const runs::MemoryError& e : runs::memoryErrors(comparisons)) {
            FrameworkMemoryError& row = found[e.framework];
            row.framework = e.framework;
            ++row.records;
            row.largest_underprediction = std::min(row.largest_underprediction, e.error);
        }
        QString paste;
        bool same = found.size() == bundledMemoryErrors().size();
        for (const auto& [framework, row] : found) {
            paste += QString("%1: %2 records, largest under-prediction %3\n")
                         .arg(QString::fromUtf8(frameworkName(framework).data(), qsizetype(frameworkName(framework).size())))
                         .arg(row.records)
                         .arg(row.largest_underprediction, 0, 'f', 5);
            bool listed = false;
            for (const FrameworkMemoryError& bundled : bundledMemoryErrors()) {
                if (bundled.framework != framework)
                    continue;
                listed = true;
                same = same && bundled.records == row.records
                    && std::abs(bundled.largest_underprediction - row.largest_underprediction) < 5e-5;
            }
            same = same && listed;
        }
        QVERIFY2(same, qPrintable("the records give, for memory_margin.cpp's table:\n" + paste));
    }

    void tightWhenHeadroomIsBelowTheError_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<double>("peakMb");
        QTest::addColumn<double>("limitMb");
        QTest::addColumn<bool>("tight");
        QTest::addColumn<QString>("noteHas");
        QTest::addColumn<int>("graphs"); // CudaGraphs
        // Megatron-Core and Bridge together: the worst of both (-6.2 %).
        QTest::newRow("megatron-core, 2.5 % left")
            << int(Framework::MegatronCore) << 78000.0 << 80000.0 << true
            << "tight: the model under-predicted Megatron-Core and Megatron-Bridge" << int(CudaGraphs::None);
        QTest::newRow("megatron-core, 25 % left") << int(Framework::MegatronCore) << 60000.0 << 80000.0 << false
                                                  << "25.0 % of the limit left" << int(CudaGraphs::None);
        QTest::newRow("megatron-bridge, 5 % left")
            << int(Framework::MegatronBridge) << 76000.0 << 80000.0 << true << "(18 records)" << int(CudaGraphs::None);
        QTest::newRow("megatron-core, 6.5 % left")
            << int(Framework::MegatronCore) << 74800.0 << 80000.0 << false << "up to 6.2 %" << int(CudaGraphs::None);
        // torchtitan's worst record is its 405B 1F1B run (-16.7 %).
        QTest::newRow("torchtitan, 12.5 % left")
            << int(Framework::Torchtitan) << 70000.0 << 80000.0 << true << "torchtitan records' peaks by up to 16.7 %"
            << int(CudaGraphs::None);
        QTest::newRow("composer, 1 % left: unknown") << int(Framework::Composer) << 79200.0 << 80000.0 << false
                                                     << "no composer record publishes memory" << int(CudaGraphs::None);
        QTest::newRow("over the limit") << int(Framework::MegatronCore) << 88000.0 << 80000.0 << false
                                        << "over the limit by 10.0 %" << int(CudaGraphs::None);
        // A refused plan is never costed (peak 0): no margin is claimed for it.
        QTest::newRow("refused") << int(Framework::MegatronCore) << 0.0 << 80000.0 << false << "not estimated"
                                 << int(CudaGraphs::None);
        // CUDA graphs' pools are not in the peak: the note says so.
        QTest::newRow("attention graphs")
            << int(Framework::MegatronCore) << 60000.0 << 80000.0 << false
            << "pools and static buffers (Megatron-Bridge: a few GB)" << int(CudaGraphs::Attention);
        QTest::newRow("full-iteration graph") << int(Framework::MegatronCore) << 60000.0 << 80000.0 << false
                                              << "up to 1.5-2x the peak" << int(CudaGraphs::FullIteration);
    }

    void tightWhenHeadroomIsBelowTheError()
    {
        QFETCH(int, framework);
        QFETCH(double, peakMb);
        QFETCH(double, limitMb);
        QFETCH(bool, tight);
        QFETCH(QString, noteHas);
        QFETCH(int, graphs);
        Estimate e;
        e.strategy.framework = Framework(framework);
        e.strategy.cuda_graphs = CudaGraphs(graphs);
        e.peak_memory_mb = peakMb;
        e.memory_limit_mb = limitMb;
        e.fits = peakMb > 0 && peakMb <= limitMb;
        if (peakMb == 0)
            e.problems.push_back("tp must be at least 1, found 0");
        const MemoryMargin m = memoryMargin(e);
        QCOMPARE(m.tight, tight);
        QCOMPARE(m.headroom, peakMb > 0 ? 1 - peakMb / limitMb : 0.0);
        QVERIFY2(QString::fromStdString(m.note).contains(noteHas), m.note.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMemoryMargin)
#include "tst_memory_margin.moc"
