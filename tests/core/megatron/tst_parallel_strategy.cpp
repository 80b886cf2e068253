// SPDX-License-Identifier: GPL-3.0-or-later
// A strategy's rules and layout (core/megatron/parallel_strategy.*): Megatron's acceptance rules,
// uneven first and last stages, and Llama 3's balanced interleaved chunks.
#include <algorithm>
#include <numeric>

#include <QtTest>

#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_presets.h"
#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::gpt175b;
using test::gpus;

} // namespace

class TestParallelStrategy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void megatronRules_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("problem"); // empty: accepted
        QTest::newRow("valid") << ""
                               << "";
        QTest::newRow("world") << "dp=2"
                               << "the cluster has 64";
        QTest::newRow("heads") << "tp=5"
                               << "not divisible by tp 5";
        QTest::newRow("sp needs tp") << "sp1"
                                     << "needs tp > 1";
        QTest::newRow("tp overlap needs sp") << "overlap-no-sp"
                                             << "TP communication overlap needs sequence parallelism";
        QTest::newRow("tp overlap with sp") << "overlap"
                                            << "";
        QTest::newRow("batch") << "gbs=100"
                               << "not divisible by micro_batch_size";
        QTest::newRow("vpp needs interleaving") << "vpp=13"
                                                << "needs the interleaved schedule";
        QTest::newRow("uneven ends are a layout") << "ends"
                                                  << "";
        QTest::newRow("ep needs moe") << "ep=2"
                                      << "needs a MoE model";
        // 96 heads over tp 8: 12 a rank, which cp 4 divides and cp 8 does not.
        QTest::newRow("ulysses where heads divide") << "a2a cp=4"
                                                    << "";
        QTest::newRow("ulysses heads per rank") << "a2a cp=8"
                                                << "divisible by cp 8";
        // Megatron-LM's interleaved schedule (schedules.py forward_backward_pipelining_with_interleaving,
        // d98e8a64; micro-batch group = pp by default): M a multiple of pp 8.
        QTest::newRow("interleaved, 64 micro-batches") << "vpp=2 gbs=64"
                                                       << "";
        QTest::newRow("interleaved, 60 micro-batches") << "vpp=2 gbs=60"
                                                       << "to be a multiple of pp 8";
        QTest::newRow("interleaved, 4 micro-batches") << "vpp=2 gbs=4"
                                                      << "to be a multiple of pp 8";
        QTest::newRow("1F1B, 60 micro-batches") << "gbs=60"
                                                << "";
        // The micro-batch group N (--microbatch-group-size-per-virtual-pipeline-stage): in [pp, M]
        // with a last group of 0 or at least pp (schedules.py @ d98e8a64); M = 64 here, pp 8.
        QTest::newRow("group 16 of 64") << "vpp=2 gbs=64 n=16"
                                        << "";
        QTest::newRow("group 24 of 64, last group 16") << "vpp=2 gbs=64 n=24"
                                                       << "";
        QTest::newRow("group 28 of 64, last group 8") << "vpp=2 gbs=64 n=28"
                                                      << "";
        QTest::newRow("group 30 of 64, last group 4") << "vpp=2 gbs=64 n=30"
                                                      << "leaves a last group of 4";
        QTest::newRow("group 4 below pp 8") << "vpp=2 gbs=64 n=4"
                                            << "must lie in [pp 8, micro-batches 64]";
        QTest::newRow("group 72 above M") << "vpp=2 gbs=64 n=72"
                                          << "must lie in [pp 8, micro-batches 64]";
        QTest::newRow("group 60 lifts M's multiple-of-pp rule") << "vpp=2 gbs=60 n=60"
                                                               << "";
        QTest::newRow("group without interleaving") << "gbs=64 n=16"
                                                    << "needs the interleaved schedule (vpp > 1)";
    }
    void megatronRules()
    {
        QFETCH(QString, change);
        QFETCH(QString, problem);
        const model::ModelDescription model = gpt175b(); // 96 layers, 96 heads
        ParallelStrategy s;
        s.tp = 8;
        s.pp = 8;
        s.dp = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 64;
        if (change == "dp=2")
            s.dp = 2;
        else if (change == "tp=5")
            s.tp = 5;
        else if (change == "sp1") {
            s.tp = 1;
            s.dp = 8;
        } else if (change == "gbs=100") {
            s.dp = 1;
            s.micro_batch_size = 3;
            s.global_batch_size = 100;
        } else if (change == "vpp=13") {
            s.vpp = 13;
        } else if (change.startsWith("vpp=2 gbs=")) {
            s.vpp = 2;
            s.schedule = PipelineSchedule::Interleaved;
            s.global_batch_size = change.section(' ', 1, 1).section('=', 1).toInt();
            if (change.contains(" n="))
                s.microbatch_group_size = change.section('=', 3).toInt();
        } else if (change == "gbs=64 n=16") {
            s.microbatch_group_size = 16;
        } else if (change == "gbs=60") {
            s.global_batch_size = 60;
        } else if (change == "ends") {
            s.first_stage_layers = 11;
            s.last_stage_layers = 11;
        } else if (change == "ep=2") {
            s.ep = 2;
        } else if (change.startsWith("overlap")) {
            s.tp_comm_overlap = true;
            s.sequence_parallel = change == "overlap";
        } else if (change.startsWith("a2a")) {
            s.cp_comm_type = CpCommType::A2a;
            s.cp = change.endsWith("cp=8") ? 8 : 4;
            s.pp = 8 / s.cp;
        }
        const std::vector<std::string> problems = strategyProblems(s, model, 64);
        if (problem.isEmpty()) {
            if (!problems.empty())
                QFAIL(problems.front().c_str());
            return;
        }
        QString all;
        for (const std::string& text : problems)
            all += QString::fromStdString(text) + "; ";
        QVERIFY2(all.contains(problem), qPrintable(all));
    }

    void unevenEndsSpreadTheRest()
    {
        ParallelStrategy s;
        s.pp = 16;
        s.first_stage_layers = 7;
        s.last_stage_layers = 7;
        const std::vector<int> counts = stageLayerCounts(s, 126); // Llama 3 405B's layout
        QCOMPARE(counts.front(), 7);
        QCOMPARE(counts.back(), 7);
        QCOMPARE(std::accumulate(counts.begin(), counts.end(), 0), 126);
        QCOMPARE(*std::max_element(counts.begin() + 1, counts.end() - 1), 8);
    }

    // Llama 3's balanced interleaved pipeline (Dubey et al. 2024 §3.3.2): one layer less on the
    // first and the last rank, which "means that the first model chunk on the first stage has only
    // the embedding, and the last model chunk on the last stage has only output projection and
    // loss calculation": 126 layers as 16 ranks x 8 one-layer chunks, rank 0's chunk 0 and rank 15's
    // chunk 7 empty. The estimate's chunks are the same (an exported layout is what was costed).
    void balancedEndsEmptyTheOuterChunks()
    {
        ParallelStrategy s;
        s.tp = 8;
        s.pp = 16;
        s.vpp = 8;
        s.schedule = PipelineSchedule::Interleaved;
        s.first_stage_layers = 7;
        s.last_stage_layers = 7;
        const std::vector<int> chunks = chunkLayerCounts(s, 126);
        QCOMPARE(int(chunks.size()), 128);
        for (int j = 0; j < 8; ++j) {
            for (int i = 0; i < 16; ++i) {
                const bool empty = (i == 0 && j == 0) || (i == 15 && j == 7);
                QCOMPARE(chunks[std::size_t(j * 16 + i)], empty ? 0 : 1);
            }
        }
        // Uneven chunks elsewhere: the first chunks take the extra layers; on the first rank the
        // last ones (its chunk 0 carries the embedding).
        QCOMPARE(chunkLayerCount(10, 0, 0, 4), 2);
        QCOMPARE(chunkLayerCount(10, 0, 3, 4), 3);
        QCOMPARE(chunkLayerCount(10, 5, 0, 4), 3);
        QCOMPARE(chunkLayerCount(10, 5, 3, 4), 2);
        // The memory ledger: rank 0's empty first chunk stores nothing, so its warm-up forwards of
        // chunk 0 hold no activations: fewer than the rank's 7 layers x its in-flight chunks.
        model::ModelDescription model = model::modelPreset("llama3-405b");
        s.sequence_parallel = true;
        s.dp = 64;
        s.zero = 2;
        s.global_batch_size = 2048;
        const Estimate e = estimate(model, s, gpus("h100-80gb", 1024));
        QVERIFY(e.problems.empty());
        const StageEstimate& first = e.stages.front();
        QVERIFY(first.memory_from_ledger);
        // Megatron's warm-up on rank 0 with m = 32: (16 - 1) x 2 + 7 x 16 + 1 = 143 chunk forwards,
        // of which 31 run the empty chunk 0 (micro-batches 0-15 and 16-30): 112 one-layer
        // activations = 16 micro-batches of the rank's 7 layers.
        QCOMPARE(first.inflight_microbatches_x100, 1600);
    }
};

QTEST_GUILESS_MAIN(TestParallelStrategy)
#include "tst_parallel_strategy.moc"
