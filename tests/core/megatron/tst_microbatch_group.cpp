// SPDX-License-Identifier: GPL-3.0-or-later
// The interleaved schedule's micro-batch group N (ParallelStrategy::microbatch_group_size;
// docs/memory-model.md, "Micro-batch group N"): Megatron-Core's
// --microbatch-group-size-per-virtual-pipeline-stage and Llama 3's "flexible N" (Dubey et al. 2024,
// §3.3.2, Figure 6). What the simulator runs for it, how the warm-up and the memory ledger follow
// it, and the strategy JSON.
#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/strategy_json.h"
#include "core/model/model_presets.h"

#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

// Llama 3 8B on 2 x 8 H100: tp 2, pp 4, vpp 2 (8 chunks of 4 layers), dp 2, 16 micro-batches.
ParallelStrategy interleaved(int group)
{
    ParallelStrategy s;
    s.tp = 2;
    s.pp = 4;
    s.vpp = 2;
    s.dp = 2;
    s.sequence_parallel = true;
    s.zero = 1;
    s.schedule = PipelineSchedule::Interleaved;
    s.global_batch_size = 32;
    s.microbatch_group_size = group;
    return s;
}

} // namespace

class TestMicrobatchGroup : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // N = pp (given or not) is Megatron's depth-first order, Interleaved1F1B; any other N runs the
    // flexible-interleaved order with that N. torchtitan leaves N to torch's ScheduleInterleaved1F1B:
    // micro-batches per round, M // max(1, M // pp) (ParallelStrategy::microbatchGroupSize), which is
    // pp only when pp divides M; the search's unsimulated warm-up follows the same order, so its
    // memory stays below the simulated ledger's and close to it.
    void scheduleFollowsN_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("simulatedN");
        const int megatron = int(Framework::MegatronCore);
        const int torchtitan = int(Framework::Torchtitan);
        const int grid = int(sim::ScheduleKind::Interleaved1F1B);
        const int flexible = int(sim::ScheduleKind::FlexibleInterleaved);
        QTest::newRow("default") << megatron << 16 << 0 << grid << 0;
        QTest::newRow("pp given") << megatron << 16 << 4 << grid << 0;
        QTest::newRow("8") << megatron << 16 << 8 << flexible << 8;
        QTest::newRow("M, breadth-first") << megatron << 16 << 16 << flexible << 16;
        QTest::newRow("torchtitan M 16: 4 rounds of 4") << torchtitan << 16 << 0 << grid << 0;
        QTest::newRow("torchtitan M 10: 2 rounds of 5") << torchtitan << 10 << 0 << flexible << 5;
        QTest::newRow("torchtitan M 6: one round") << torchtitan << 6 << 0 << flexible << 6;
        QTest::newRow("torchtitan M 3 < pp: one round") << torchtitan << 3 << 0 << flexible << 3;
    }
    void scheduleFollowsN()
    {
        QFETCH(int, framework);
        QFETCH(int, microbatches);
        QFETCH(int, group);
        QFETCH(int, kind);
        QFETCH(int, simulatedN);
        ParallelStrategy s = interleaved(group);
        s.framework = Framework(framework);
        if (s.framework == Framework::Torchtitan)
            s.zero = 3; // FSDP2
        s.global_batch_size = microbatches * s.dp;
        QCOMPARE(s.microbatches(), microbatches);
        QCOMPARE(int(pipelineScheduleKind(s)), kind);
        QCOMPARE(pipelineSimulationOptions(s).microbatch_group_size, simulatedN);

        const model::ModelDescription model = model::modelPreset("llama3-8b");
        const hardware::HardwareModel hw = test::gpus("h100-80gb", 2);
        const Estimate simulated = estimate(model, s, hw);
        EstimateOptions unsimulated;
        unsimulated.simulate_pipeline = false;
        const Estimate bound = estimate(model, s, hw, unsimulated);
        QVERIFY2(simulated.problems.empty(), simulated.problems.empty() ? "" : simulated.problems.front().c_str());
        QVERIFY2(bound.allocated_peak_mb <= simulated.allocated_peak_mb * (1 + 1e-12),
            qPrintable(QString("bound %1 MB > ledger %2 MB").arg(bound.allocated_peak_mb).arg(simulated.allocated_peak_mb)));
        // The activations, the part the schedule's order decides, within 1 % below.
        const double boundMb = bound.stages.front().memory.activations_mb;
        const double ledgerMb = simulated.stages.front().memory.activations_mb;
        QVERIFY2(boundMb <= ledgerMb * (1 + 1e-12), qPrintable(QString("bound %1 MB > ledger %2 MB").arg(boundMb).arg(ledgerMb)));
        QVERIFY2(boundMb > 0.99 * ledgerMb, qPrintable(QString("bound %1 MB, ledger %2 MB").arg(boundMb).arg(ledgerMb)));
        QVERIFY(std::abs(bound.stages.front().inflight_microbatches_x100 - simulated.stages.front().inflight_microbatches_x100) <= 1);
    }

    // Megatron's warm-up is (p - i - 1)·2 + (v - 1)·N chunk forwards (get_pp_rank_microbatches,
    // schedules.py @ d98e8a64): a larger N holds more activations on the first stage, which the
    // ledger shows; N = pp given is the default to the byte.
    void peakFollowsN_data()
    {
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("inflightX100"); // stage 0's activations at its peak, micro-batches x 100
        QTest::newRow("4 = pp") << 4 << 550;
        QTest::newRow("8") << 8 << 750;
        QTest::newRow("16 = M") << 16 << 1150;
    }
    void peakFollowsN()
    {
        QFETCH(int, group);
        QFETCH(int, inflightX100);
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        const hardware::HardwareModel hw = test::gpus("h100-80gb", 2);
        const Estimate e = estimate(model, interleaved(group), hw);
        QVERIFY(e.problems.empty());
        QCOMPARE(e.stages.front().inflight_microbatches_x100, inflightX100);
        const Estimate fallback = estimate(model, interleaved(0), hw);
        if (group == 4) {
            QCOMPARE(e.iteration_ms, fallback.iteration_ms);
            QCOMPARE(e.allocated_peak_mb, fallback.allocated_peak_mb);
        } else {
            QVERIFY2(e.stages.front().memory.activations_mb > fallback.stages.front().memory.activations_mb,
                qPrintable(QString::number(e.stages.front().memory.activations_mb)));
        }
        // The unsimulated bound's warm-up (the search's first pass) follows N too.
        EstimateOptions bound;
        bound.simulate_pipeline = false;
        const Estimate b = estimate(model, interleaved(group), hw, bound);
        QVERIFY2(b.allocated_peak_mb <= e.allocated_peak_mb + 1e-6,
            qPrintable(QString("%1 > %2").arg(b.allocated_peak_mb).arg(e.allocated_peak_mb)));
        QCOMPARE(b.stages.front().inflight_microbatches_x100, inflightX100);
    }

    // Written only when given and not pp; read back the same.
    void jsonRoundTrip_data()
    {
        QTest::addColumn<int>("group");
        QTest::addColumn<bool>("written");
        QTest::newRow("default") << 0 << false;
        QTest::newRow("8") << 8 << true;
        QTest::newRow("16") << 16 << true;
    }
    void jsonRoundTrip()
    {
        QFETCH(int, group);
        QFETCH(bool, written);
        const ParallelStrategy s = interleaved(group);
        const nlohmann::ordered_json json = toJson(s);
        QCOMPARE(json.contains("microbatch_group_size"), written);
        const JsonDocument document = JsonDocument::parse(json.dump(), "s.json");
        const ParallelStrategy back = readStrategy(document.root(), model::modelPreset("llama3-8b"), 16);
        QCOMPARE(back.microbatch_group_size, group);
        QVERIFY(back == s);
        QCOMPARE(QString::fromStdString(back.notation()).contains(" n" + QString::number(group)), written);
    }

    // Bad values name the file, the key, what Megatron-Core accepts and what was found.
    void jsonErrorsNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        const QString base = "'tp': 2, 'pp': 4, 'dp': 2, 'global_batch_size': 32, ";
        QTest::newRow("below pp") << "{" + base + "'vpp': 2, 'schedule': 'interleaved', 'microbatch_group_size': 2}"
                                  << "[pp 4, micro-batches 16]";
        QTest::newRow("above M") << "{" + base + "'vpp': 2, 'schedule': 'interleaved', 'microbatch_group_size': 20}"
                                 << "[pp 4, micro-batches 16]";
        QTest::newRow("last group 2") << "{" + base + "'vpp': 2, 'schedule': 'interleaved', 'microbatch_group_size': 7}"
                                      << "is 0 or at least pp 4";
        QTest::newRow("no interleaving") << "{" + base + "'microbatch_group_size': 8}"
                                         << "the interleaved schedule (vpp > 1)";
        QTest::newRow("not positive") << "{" + base + "'vpp': 2, 'schedule': 'interleaved', 'microbatch_group_size': 0}"
                                      << "positive";
    }
    void jsonErrorsNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        const JsonDocument document = JsonDocument::parse(json.replace('\'', '"').toStdString(), "s.json");
        try {
            readStrategy(document.root(), model::modelPreset("llama3-8b"), 16);
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), QString("/microbatch_group_size"));
            QVERIFY2(QString::fromStdString(error.what()).contains("s.json"), error.what());
            QVERIFY2(QString::fromStdString(error.what()).contains(expected), error.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestMicrobatchGroup)
#include "tst_microbatch_group.moc"
