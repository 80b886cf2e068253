// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex cost model against the published runs of resources/reference-runs: the error on
// the hold-out papers (never fitted on) must not grow, and every record must be costable.
#include <QtTest>

#include "core/common/error.h"
#include "core/runs/reference_run.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

std::vector<ReferenceComparison> compareAll(const std::vector<ReferenceRun>& runs)
{
    std::vector<ReferenceComparison> comparisons;
    for (const ReferenceRun& run : runs)
        comparisons.push_back(compareWithRun(run, efficiencyFor(run.cluster)));
    return comparisons;
}

} // namespace

class TestReferenceRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyRecordIsCostable()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        QVERIFY(runs.size() >= 100);
        for (const ReferenceComparison& c : compareAll(runs)) {
            if (!c.estimate.problems.empty())
                QFAIL(qPrintable(QString::fromStdString(c.run->id + ": " + c.estimate.problems.front())));
            QVERIFY(c.predicted_iteration_s > 0);
            QVERIFY(c.run->measured_iteration_s > 0);
        }
    }

    // Issue 9's targets: 10 % on runs not used for fitting, no run that trained predicted out of
    // memory. With the presets fitted on the "fit" runs (efficiencyFor): 8.4 % over the 29
    // hold-out runs (Narayanan SC21, Korthikanti 2022, Llama 3), none of them called out of memory;
    // on the fit runs 13.2 % (16.2 % before issue 22's collectives), with 3 trained runs called out
    // of memory (framework-specific recompute or memory policies the records do not carry: see
    // README). None may grow.
    void holdOutErrorStaysWithinTarget()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        std::vector<ReferenceComparison> holdout;
        int trainedButOom = 0;
        int fitTrainedButOom = 0;
        for (const ReferenceComparison& c : compareAll(runs)) {
            if (c.run->fit) {
                if (c.predicted_oom && c.run->trained)
                    ++fitTrainedButOom;
                continue;
            }
            holdout.push_back(c);
            if (c.predicted_oom && c.run->trained)
                ++trainedButOom;
        }
        QCOMPARE(int(holdout.size()), 29);
        const double mae = meanAbsoluteError(holdout);
        QVERIFY2(mae <= 0.10, qPrintable(QString("hold-out MAE %1").arg(mae)));
        QVERIFY2(trainedButOom == 0, qPrintable(QString("%1 trained runs predicted OOM").arg(trainedButOom)));
        QVERIFY2(fitTrainedButOom <= 7, qPrintable(QString("%1 trained fit runs predicted OOM").arg(fitTrainedButOom)));
    }

    void badRecordsNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("keyPath");
        const QString model = "'model': {'preset': 'llama2-7b'}, ";
        const QString cluster = "'cluster': {'gpu': 'a100-80gb', 'num_nodes': 1, 'gpus_per_node': 8}, ";
        QTest::newRow("use") << "{'id': 'x', 'use': 'train'}"
                             << "/use";
        QTest::newRow("gpu") << "{'id': 'x', 'use': 'fit', " + model
                + "'cluster': {'gpu': 'tpu', 'num_nodes': 1, 'gpus_per_node': 8}}"
                             << "/cluster/gpu";
        QTest::newRow("convention") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'tflops_per_gpu': 100, "
                  "'flops_convention': 'mine'}}"
                                    << "/measured/flops_convention";
        QTest::newRow("recompute") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8, 'recompute': 'some'}}"
                                   << "/strategy/recompute";
    }
    void badRecordsNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, keyPath);
        QTemporaryDir dir;
        const QString path = dir.filePath("run.json");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(json.replace('\'', '"').toUtf8());
        file.close();
        try {
            readReferenceRun(path.toStdString());
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
        }
    }
};

QTEST_GUILESS_MAIN(TestReferenceRuns)
#include "tst_reference_runs.moc"
