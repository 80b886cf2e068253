// SPDX-License-Identifier: GPL-3.0-or-later
// The search's memo (core/megatron/estimate_memo.h, docs/search-speed.md): each candidate costed
// through one memo, in the order a search meets them, gives the same bits as costed alone. Each
// row changes, one candidate after the other, the fields the memo's entries are keyed by or leave
// out of a key: ZeRO, HSDP's dp_shard, the schedule, the global batch (also for the interleaved
// warm-up, which is also kept across entries), recompute, the micro-batch size and the framework.
// Then whole search spaces, in the search's order, and the first pass against stage by stage.
#include <QtTest>

#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/megatron/estimate.h"
#include "core/model/model_presets.h"
#include "core/megatron/strategy_search.h"
#include "support/h100_cluster.h"
#include "support/search_request.h"

using namespace stratex;
using namespace stratex::megatron;

using Candidates = std::vector<ParallelStrategy>;
Q_DECLARE_METATYPE(Candidates)
Q_DECLARE_METATYPE(stratex::megatron::ParallelStrategy)

namespace {

ParallelStrategy base(int tp, int pp, int dp, int gbs)
{
    ParallelStrategy s;
    s.tp = tp;
    s.pp = pp;
    s.dp = dp;
    s.sequence_parallel = tp > 1;
    s.global_batch_size = gbs;
    s.zero = 1;
    return s;
}

// `s` with one field changed, for the rows below.
template <class F> ParallelStrategy with(ParallelStrategy s, F change)
{
    change(s);
    return s;
}

// Every figure the search's first pass reads, equal to the bit.
bool sameBits(const Estimate& a, const Estimate& b)
{
    return a.problems == b.problems && a.fits == b.fits && a.iteration_ms == b.iteration_ms
        && a.pipeline_ms == b.pipeline_ms && a.optimizer_ms == b.optimizer_ms && a.dp_exposed_ms == b.dp_exposed_ms
        && a.peak_memory_mb == b.peak_memory_mb && a.allocated_peak_mb == b.allocated_peak_mb
        && a.device_peak_mb == b.device_peak_mb;
}

} // namespace

class TestEstimateMemo : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sameAsWithoutMemo_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<Candidates>("candidates");

        // Mixtral 8x7B on 32 GPUs: tp 2, pp 2, dp 8.
        const ParallelStrategy moe = base(2, 2, 8, 64);
        QTest::newRow("zero stages") << "mixtral-8x7b" << 4
                                     << Candidates { with(moe, [](auto& s) { s.zero = 0; }), moe,
                                            with(moe, [](auto& s) { s.zero = 2; }), with(moe, [](auto& s) { s.zero = 3; }) };
        // HSDP: the plan's communicators gain two groups (the device memory's key).
        QTest::newRow("dp_shard") << "mixtral-8x7b" << 4
                                  << Candidates { moe, with(moe, [](auto& s) { s.dp_shard = 4; }),
                                         with(moe, [](auto& s) { s.dp_shard = 2; }), moe,
                                         with(moe, [](auto& s) { s.zero = 3; s.dp_shard = 4; }) };
        // ZB-H1 leaves the lower bound's tail out (its key).
        const ParallelStrategy llama = base(4, 4, 2, 64);
        QTest::newRow("schedule") << "llama3-8b" << 4
                                  << Candidates { llama, with(llama, [](auto& s) { s.schedule = PipelineSchedule::ZbH1; }),
                                         llama, with(llama, [](auto& s) { s.schedule = PipelineSchedule::ZbH1; }) };
        // The micro-batch count (the lower bound's key) follows the global batch.
        QTest::newRow("global batch") << "llama3-8b" << 4
                                      << Candidates { llama, with(llama, [](auto& s) { s.global_batch_size = 128; }),
                                             with(llama, [](auto& s) { s.global_batch_size = 16; }), llama };
        // The stages' states serve candidates that differ only in recompute.
        QTest::newRow("recompute") << "mixtral-8x7b" << 4
                                   << Candidates { moe, with(moe, [](auto& s) { s.recompute = Recompute::Selective; }),
                                          with(moe, [](auto& s) { s.recompute = Recompute::Full; s.recompute_num_layers = 1; }),
                                          with(moe, [](auto& s) { s.recompute = Recompute::Full; s.zero = 2; }) };
        QTest::newRow("micro-batch size") << "llama3-8b" << 4
                                          << Candidates { llama, with(llama, [](auto& s) { s.micro_batch_size = 2; }),
                                                 with(llama, [](auto& s) { s.micro_batch_size = 4; s.zero = 3; }), llama };
        // The interleaved warm-up (kept per entry and stage) reads the micro-batch count: 8
        // sequences over dp 2 x mbs 1 warm up fewer chunks than 64, with the same entry.
        const ParallelStrategy interleaved = with(llama, [](auto& s) {
            s.schedule = PipelineSchedule::Interleaved;
            s.vpp = 2;
        });
        QTest::newRow("interleaved warm-up")
            << "llama3-8b" << 4
            << Candidates { interleaved, with(interleaved, [](auto& s) { s.zero = 2; }),
                   with(interleaved, [](auto& s) { s.global_batch_size = 8; }),
                   with(interleaved, [](auto& s) { s.global_batch_size = 8; s.zero = 3; }), interleaved,
                   with(interleaved, [](auto& s) { s.recompute = Recompute::Full; s.recompute_num_layers = 1; }) };
        // Warm-up sets are also kept by what they read, across entries: expert layouts whose
        // chunks hold the same activations share one, a recompute choice does not.
        const ParallelStrategy moeInterleaved = with(moe, [](auto& s) {
            s.schedule = PipelineSchedule::Interleaved;
            s.vpp = 2;
        });
        QTest::newRow("warm-up across entries")
            << "mixtral-8x7b" << 4
            << Candidates { moeInterleaved, with(moeInterleaved, [](auto& s) { s.ep = 2; }),
                   with(moeInterleaved, [](auto& s) { s.ep = 4; s.zero = 2; }),
                   with(moeInterleaved, [](auto& s) { s.ep = 2; s.recompute = Recompute::Full; s.recompute_num_layers = 1; }),
                   with(moeInterleaved, [](auto& s) { s.global_batch_size = 32; }), moeInterleaved };
        // torchtitan's pipelining buffers grow with the micro-batch count.
        const ParallelStrategy titan = with(llama, [](auto& s) {
            s.framework = Framework::Torchtitan;
            s.zero = 2; // torchtitan has no ZeRO-1 (docs/frameworks.md)
        });
        QTest::newRow("torchtitan") << "llama3-8b" << 4
                                    << Candidates { titan, with(titan, [](auto& s) { s.global_batch_size = 128; }),
                                           with(titan, [](auto& s) { s.zero = 3; }), titan };
    }

    void sameAsWithoutMemo()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(Candidates, candidates);
        const model::ModelDescription m = model::modelPreset(model.toStdString());
        const hardware::HardwareModel hw = test::h100s(nodes);
        EstimateOptions alone; // the search's first pass
        alone.simulate_pipeline = false;
        alone.full_report = false;
        EstimateMemo memo;
        EstimateOptions memoised = alone;
        memoised.memo = &memo;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const ParallelStrategy& s = candidates[i];
            const Estimate expected = estimate(m, s, hw, alone);
            QVERIFY2(expected.problems.empty(), qPrintable(QString::fromStdString(s.notation())));
            const Estimate got = estimate(m, s, hw, memoised);
            QVERIFY2(sameBits(got, expected),
                qPrintable(QStringLiteral("candidate %1 (%2): %3 ms, %4 MB through the memo; %5 ms, %6 MB alone")
                        .arg(i)
                        .arg(QString::fromStdString(s.notation()))
                        .arg(got.iteration_ms, 0, 'g', 17)
                        .arg(got.peak_memory_mb, 0, 'g', 17)
                        .arg(expected.iteration_ms, 0, 'g', 17)
                        .arg(expected.peak_memory_mb, 0, 'g', 17)));
        }
    }

    // A whole search space costed through one memo, in the search's order and backwards, gives the
    // bits each candidate gives alone; in that order neighbours differ in ZeRO or recompute only.
    void wholeSpaceInSearchOrder_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<int>("framework");
        QTest::newRow("mixtral-8x7b MoE") << "mixtral-8x7b" << 4 << 256 << int(Framework::MegatronCore);
        QTest::newRow("llama3-8b dense") << "llama3-8b" << 2 << 64 << int(Framework::MegatronCore);
        QTest::newRow("deepseek-v3-style MLA, dense first layers") << "deepseek-v3-style" << 32 << 512
                                                                   << int(Framework::MegatronCore);
        QTest::newRow("llama3-8b torchtitan") << "llama3-8b" << 2 << 64 << int(Framework::Torchtitan);
    }

    void wholeSpaceInSearchOrder()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(int, globalBatch);
        QFETCH(int, framework);
        StrategySearchRequest r = test::searchRequest(model.toStdString().c_str(), "h100-80gb", nodes, 8, globalBatch);
        r.space.zb_h1 = true;
        r.space.framework = Framework(framework);
        if (r.model.moe) {
            // Every kind of change between neighbours in some 10^5 candidates (the whole space of
            // the DeepSeek-V3-style row is a million, most of this suite's time under the sanitizers).
            r.space.max_ep = 8;
            r.space.max_vpp = 2;
            r.space.max_micro_batch_size = 2;
        }
        const hardware::HardwareModel hw(r.cluster, r.efficiency);
        const std::vector<ParallelStrategy> candidates = enumerateStrategies(r);
        QVERIFY(candidates.size() > 1000);
        EstimateOptions plain;
        plain.simulate_pipeline = false;
        plain.full_report = false;
        std::vector<Estimate> expected;
        expected.reserve(candidates.size());
        for (const ParallelStrategy& s : candidates)
            expected.push_back(estimate(r.model, s, hw, plain));
        for (const bool backwards : { false, true }) {
            EstimateMemo memo;
            EstimateOptions memoised = plain;
            memoised.memo = &memo;
            int zeroNeighbours = 0;
            int recomputeNeighbours = 0;
            for (std::size_t k = 0; k < candidates.size(); ++k) {
                const std::size_t i = backwards ? candidates.size() - 1 - k : k;
                const Estimate& a = expected[i];
                const Estimate b = estimate(r.model, candidates[i], hw, memoised);
                // To the bit (QCOMPARE on doubles is fuzzy): the search's output must not move.
                const auto same = [&](double x, double y, const char* field) {
                    if (x == y)
                        return true;
                    qWarning("%s: %s %.17g with the memo, %.17g without", candidates[i].notation().c_str(), field, x, y);
                    return false;
                };
                QCOMPARE(b.problems, a.problems);
                QVERIFY(same(b.iteration_ms, a.iteration_ms, "iteration_ms"));
                QVERIFY(same(b.pipeline_ms, a.pipeline_ms, "pipeline_ms"));
                QVERIFY(same(b.dp_exposed_ms, a.dp_exposed_ms, "dp_exposed_ms"));
                QVERIFY(same(b.optimizer_ms, a.optimizer_ms, "optimizer_ms"));
                QVERIFY(same(b.peak_memory_mb, a.peak_memory_mb, "peak_memory_mb"));
                QVERIFY(same(b.allocated_peak_mb, a.allocated_peak_mb, "allocated_peak_mb"));
                QCOMPARE(b.fits, a.fits);
                if (i > 0) {
                    zeroNeighbours += candidates[i].zero != candidates[i - 1].zero ? 1 : 0;
                    recomputeNeighbours += candidates[i].recompute != candidates[i - 1].recompute ? 1 : 0;
                }
            }
            // Candidates that differ only in ZeRO stage, or only in recompute, follow each other.
            QVERIFY(zeroNeighbours > 0);
            QVERIFY(recomputeNeighbours > 0);
        }
    }

    // The first pass costs a run of identical middle stages once and a candidate's time only when
    // its memory fits (estimate.cpp): every figure it reads must equal the stage-by-stage answer
    // (full_report: each stage costed and kept). Rows: deep pipelines whose middle stages are
    // twins, 1F1B and interleaved, dense and MoE, torchtitan's FSDP under PP, uneven ends, and
    // candidates over memory (their peak only).
    void firstPassSameAsStageByStage_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<ParallelStrategy>("strategy");
        QTest::addColumn<bool>("fits");

        const ParallelStrategy deep = base(8, 8, 2, 64);
        QTest::newRow("1f1b, 8 stages") << "llama3-70b" << 16 << deep << true;
        QTest::newRow("1f1b, uneven ends") << "llama3-70b" << 16 << with(deep, [](auto& s) {
            s.first_stage_layers = 9;
            s.last_stage_layers = 9;
        }) << true;
        QTest::newRow("interleaved, 8 stages") << "llama3-70b" << 16 << with(deep, [](auto& s) {
            s.schedule = PipelineSchedule::Interleaved;
            s.vpp = 5;
        }) << true;
        QTest::newRow("zb-h1, zero 2") << "llama3-70b" << 16 << with(deep, [](auto& s) {
            s.schedule = PipelineSchedule::ZbH1;
            s.zero = 2;
        }) << true;
        QTest::newRow("moe, 4 stages") << "mixtral-8x7b" << 4 << with(base(2, 4, 4, 64), [](auto& s) { s.ep = 4; }) << true;
        QTest::newRow("torchtitan fsdp under pp") << "llama3-70b" << 16 << with(deep, [](auto& s) {
            s.framework = Framework::Torchtitan;
            s.zero = 2;
        }) << true;
        // Over memory: no pipeline at all, and a deep one with every layer's activations kept.
        QTest::newRow("over memory, no pp") << "llama3-70b" << 16 << base(1, 1, 128, 128) << false;
        QTest::newRow("over memory, 8 stages") << "llama3-70b" << 16 << with(deep, [](auto& s) {
            s.micro_batch_size = 8;
            s.zero = 0;
        }) << false;
    }

    void firstPassSameAsStageByStage()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(ParallelStrategy, strategy);
        QFETCH(bool, fits);
        const model::ModelDescription m = model::modelPreset(model.toStdString());
        const hardware::HardwareModel hw = test::h100s(nodes);
        EstimateOptions firstPass;
        firstPass.simulate_pipeline = false;
        firstPass.full_report = false;
        EstimateOptions stageByStage = firstPass;
        stageByStage.full_report = true;
        EstimateMemo memo;
        EstimateOptions memoised = firstPass;
        memoised.memo = &memo;
        const Estimate expected = estimate(m, strategy, hw, stageByStage);
        QVERIFY2(expected.problems.empty(), qPrintable(QString::fromStdString(strategy.notation())));
        QCOMPARE(expected.stages.size(), std::size_t(strategy.pp));
        QCOMPARE(expected.fits, fits); // the row tests what it says
        for (const Estimate& got : { estimate(m, strategy, hw, firstPass), estimate(m, strategy, hw, memoised) }) {
            QCOMPARE(got.fits, expected.fits);
            QCOMPARE(got.device_peak_mb, expected.device_peak_mb);
            QCOMPARE(got.peak_memory_mb, expected.peak_memory_mb);
            QCOMPARE(got.allocated_peak_mb, expected.allocated_peak_mb);
            if (!expected.fits)
                continue; // a candidate over memory is not timed
            QCOMPARE(got.iteration_ms, expected.iteration_ms);
            QCOMPARE(got.dp_exposed_ms, expected.dp_exposed_ms);
            QCOMPARE(got.optimizer_ms, expected.optimizer_ms);
            QCOMPARE(got.pipeline_ms, expected.pipeline_ms);
        }
    }
};

QTEST_GUILESS_MAIN(TestEstimateMemo)
#include "tst_estimate_memo.moc"
