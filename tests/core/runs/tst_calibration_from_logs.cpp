// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 10's done-when: runs built from Megatron-LM logs the test writes itself, in Megatron's own
// format, whose iteration times come from the cost model under known injected errors (GEMM
// efficiency x 0.85, network x 1.2, attention x 0.8) on A100-80GB nodes. They are read back
// through the real log reader (readCalibrationRuns, what `calibrate` and the Calibrate page read),
// calibrated as both calibrate (calibrateCluster), and the injected values must come back within
// 2 %, as must every run's iteration time after the fit.
#include <cmath>

#include <QTemporaryDir>
#include <QtTest>

#include "core/common/error.h"
#include "core/runs/cluster_calibration.h"
#include "core/runs/calibration_runs.h"
#include "core/hardware/efficiency.h"

#include "support/megatron_log_writer.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

std::vector<std::string> split(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& part : text.split(','))
        out.push_back(part.toStdString());
    return out;
}

runs::CalibrationRunOptions a100Nodes()
{
    runs::CalibrationRunOptions options;
    options.cluster.gpu = "a100-80gb";
    options.cluster.gpus_per_node = 8;
    return options;
}

} // namespace

class TestCalibrationFromLogs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void recoversInjectedErrors_data()
    {
        QTest::addColumn<QString>("parameters");
        QTest::addColumn<QString>("factors");
        QTest::newRow("gemm") << "gemm"
                              << "0.85";
        // The network is at most its datasheet (efficiency.cpp, issue 22): the injected error is
        // a slower network (it was 1.2x faster than the datasheet before the range became physical).
        QTest::newRow("gemm network") << "gemm,network"
                                      << "0.85,0.8";
        QTest::newRow("gemm network attention") << "gemm,network,attention"
                                                << "0.85,0.8,0.8";
    }
    void recoversInjectedErrors()
    {
        QFETCH(QString, parameters);
        QFETCH(QString, factors);
        const std::vector<std::string> names = split(parameters);
        const std::vector<std::string> factorTexts = split(factors);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const runs::CalibrationRunOptions options = a100Nodes();

        // First pass: the logs with a placeholder time, read back to get the runs exactly as the
        // reader sees them (model, strategy, cluster).
        std::vector<test::SyntheticMegatronRun> synthetic = test::variedLlamaRuns();
        // One long-sequence run (32K tokens, CP 4): at 4K tokens attention is a few per cent of a
        // layer's time, too little to pin its efficiency within 2 % once the start is the A100's
        // datasheet 0.60 (the fit stopped at 0.4906 for a true 0.48).
        test::SyntheticMegatronRun longSequence = synthetic.front();
        longSequence.model.seq_length = 32768;
        longSequence.strategy.tp = 2;
        longSequence.strategy.cp = 4;
        longSequence.strategy.dp = 1;
        longSequence.strategy.sequence_parallel = true;
        longSequence.strategy.global_batch_size = 8;
        synthetic.push_back(longSequence);
        std::vector<std::filesystem::path> files;
        for (std::size_t i = 0; i < synthetic.size(); ++i) {
            const std::string path = dir.filePath(QString("run-%1.log").arg(i)).toStdString();
            QVERIFY(test::writeMegatronLog(path, synthetic[i]));
            files.emplace_back(path);
        }
        const std::vector<ReferenceRun> shapes = runs::readCalibrationRuns(files, options);
        QCOMPARE(shapes.size(), synthetic.size());

        const Efficiency start = efficiencyFor(shapes.front().cluster);
        Efficiency truth = start;
        for (std::size_t i = 0; i < names.size(); ++i) {
            const hardware::EfficiencyField& field = *hardware::findEfficiencyField(names[i]);
            truth.*field.member = start.*field.member * std::stod(factorTexts[i]);
        }
        // Second pass: each log measures what the model predicts under the true parameters.
        for (std::size_t i = 0; i < synthetic.size(); ++i) {
            synthetic[i].iteration_ms = runError(shapes[i], truth).predicted_iteration_s * 1e3;
            QVERIFY(test::writeMegatronLog(files[i].string(), synthetic[i]));
        }
        const std::vector<ReferenceRun> runs = runs::readCalibrationRuns(files, options);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            // The reader averaged iterations 3-8 (the spread cancels) and skipped the warm-up.
            QVERIFY2(std::abs(runs[i].measured_iteration_s * 1e3 / synthetic[i].iteration_ms - 1) < 1e-3,
                runs[i].id.c_str());
            QCOMPARE(runs[i].cluster.gpu.name, std::string("a100-80gb"));
        }

        CalibrationOptions fit;
        fit.parameters = names;
        fit.max_iterations = 100;
        NullProgress progress;
        const ClusterCalibration calibration = calibrateCluster(runs, std::nullopt, fit, progress);
        const CalibrationResult& result = calibration.result;
        for (const std::string& name : names) {
            const hardware::EfficiencyField& field = *hardware::findEfficiencyField(name);
            const double expected = truth.*field.member;
            const double found = result.fitted.*field.member;
            QVERIFY2(std::abs(found / expected - 1) <= 0.02,
                qPrintable(QString("%1: true %2, fitted %3").arg(name.c_str()).arg(expected).arg(found)));
        }
        // The errors were there to find, and the fit removed them.
        double worstBefore = 0;
        for (const RunError& e : result.before)
            worstBefore = std::max(worstBefore, std::abs(e.throughput_error));
        QVERIFY2(worstBefore > 0.05, qPrintable(QString::number(worstBefore)));
        for (const RunError& e : result.after)
            QVERIFY2(std::abs(e.throughput_error) <= 0.02, e.id.c_str());
        // Every run is also predicted from a fit on the others.
        QCOMPARE(calibration.left_out.size(), runs.size());
        for (const RunError& e : calibration.left_out)
            QVERIFY2(std::abs(e.throughput_error) <= 0.02, e.id.c_str());
        QCOMPARE(calibration.cluster.efficiency, std::optional<Efficiency>(result.fitted));
    }

    // The memory reports give the run's peak: the largest max reserved, MiB to GiB.
    void peakMemoryFromTheReports()
    {
        QTemporaryDir dir;
        test::SyntheticMegatronRun run = test::variedLlamaRuns().front();
        run.max_reserved_mib = 40960;
        const std::string path = dir.filePath("memory.log").toStdString();
        QVERIFY(test::writeMegatronLog(path, run));
        const std::vector<ReferenceRun> runs = runs::readCalibrationRuns({ path }, a100Nodes());
        QCOMPARE(runs.size(), std::size_t(1));
        QVERIFY(runs.front().peak_memory_gib);
        QCOMPARE(*runs.front().peak_memory_gib, 40.0);
        QCOMPARE(runs.front().id, std::string("memory"));
    }

    // A log does not name the GPU: without it, the error says so and names the file.
    void logWithoutTheGpuIsAnError()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("nogpu.log").toStdString();
        QVERIFY(test::writeMegatronLog(path, test::variedLlamaRuns().front()));
        try {
            runs::readCalibrationRuns({ path });
            QFAIL("no error");
        } catch (const Error& error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.contains(QString::fromStdString(path)), error.what());
            QVERIFY2(message.contains("GPU", Qt::CaseInsensitive), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCalibrationFromLogs)
#include "tst_calibration_from_logs.moc"
