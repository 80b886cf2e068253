// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex search over Megatron's space: the bound it orders candidates by never exceeds the
// simulated makespan, its top plans are those of an exhaustive search, the space holds every
// dividing degree on any node count, and the answer does not depend on the thread count. Also
// the strategy's JSON and the plan file round-trip.
#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/model/model_presets.h"
#include "core/megatron/plan_file.h"
#include "core/megatron/plan_robustness.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

StrategySearchRequest request(const char* model, const char* gpu, int nodes, int gpusPerNode, int globalBatch)
{
    StrategySearchRequest r;
    r.model = model::modelPreset(model);
    r.cluster.gpu = hardware::gpuPreset(gpu);
    r.cluster.num_nodes = nodes;
    r.cluster.gpus_per_node = gpusPerNode;
    r.efficiency = efficiencyFor(r.cluster.gpu);
    r.global_batch_size = globalBatch;
    r.threads = 1;
    return r;
}

bool sameOrder(const Estimate& a, const Estimate& b)
{
    return a.iteration_ms < b.iteration_ms || (a.iteration_ms == b.iteration_ms && a.strategy < b.strategy);
}

} // namespace

class TestStrategySearch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void boundNeverExceedsSimulation_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("microbatchSize");
        QTest::addColumn<int>("first");
        QTest::newRow("1f1b pp2") << 2 << 1 << int(PipelineSchedule::OneFOneB) << 1 << 0;
        QTest::newRow("1f1b pp8") << 8 << 1 << int(PipelineSchedule::OneFOneB) << 2 << 0;
        QTest::newRow("1f1b pp8 uneven") << 8 << 1 << int(PipelineSchedule::OneFOneB) << 1 << 3;
        QTest::newRow("interleaved pp4 vpp2") << 4 << 2 << int(PipelineSchedule::Interleaved) << 1 << 0;
        QTest::newRow("interleaved pp8 vpp4") << 8 << 4 << int(PipelineSchedule::Interleaved) << 1 << 0;
        QTest::newRow("zb-h1 pp4") << 4 << 1 << int(PipelineSchedule::ZbH1) << 1 << 0;
        QTest::newRow("zb-h1 pp8 uneven") << 8 << 1 << int(PipelineSchedule::ZbH1) << 2 << 2;
    }

    void boundNeverExceedsSimulation()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, schedule);
        QFETCH(int, microbatchSize);
        QFETCH(int, first);
        const StrategySearchRequest r = request("llama2-13b", "a100-80gb", 4, 8, 64);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = pp;
        s.vpp = vpp;
        s.dp = 32 / (s.tp * pp);
        s.sequence_parallel = true;
        s.schedule = PipelineSchedule(schedule);
        s.micro_batch_size = microbatchSize;
        s.global_batch_size = 64;
        s.first_stage_layers = first;
        const HardwareModel hw(r.cluster, r.efficiency);
        EstimateOptions bounding;
        bounding.simulate_pipeline = false;
        const Estimate bound = estimate(r.model, s, hw, bounding);
        const Estimate exact = estimate(r.model, s, hw);
        QVERIFY2(exact.problems.empty(), exact.problems.empty() ? "" : exact.problems.front().c_str());
        QVERIFY2(bound.pipeline_ms <= exact.pipeline_ms * (1 + 1e-12),
            qPrintable(QString("bound %1 ms > simulated %2 ms").arg(bound.pipeline_ms).arg(exact.pipeline_ms)));
        // The bound is a useful one: within the bubble of the simulated schedule.
        QVERIFY(bound.pipeline_ms > 0.5 * exact.pipeline_ms);
        // Everything but the pipeline is the same, memory included for 1F1B: the warm-up formula
        // is the ledger's peak there. For interleaved and ZB-H1 the ledger walks the schedule's
        // actual order (docs/memory-model.md) and holds a little more than the warm-up count
        // (the steady state's extra chunk, W lagging B); the search re-checks the fit on the
        // simulated estimate.
        if (PipelineSchedule(schedule) == PipelineSchedule::OneFOneB) {
            QCOMPARE(bound.peak_memory_mb, exact.peak_memory_mb);
        } else {
            QVERIFY(bound.peak_memory_mb <= exact.peak_memory_mb * (1 + 1e-12));
            QVERIFY(bound.peak_memory_mb > 0.9 * exact.peak_memory_mb);
        }
        QCOMPARE(bound.dp_exposed_ms, exact.dp_exposed_ms);
    }

    void topPlansAreTheExhaustiveOnes_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<int>("globalBatch");
        QTest::newRow("llama2-7b, 16 GPUs") << "llama2-7b" << 2 << 8 << 32;
        QTest::newRow("llama2-13b, 24 GPUs (3 nodes)") << "llama2-13b" << 3 << 8 << 48;
        QTest::newRow("mixtral-8x7b, 32 GPUs") << "mixtral-8x7b" << 4 << 8 << 64;
    }

    void topPlansAreTheExhaustiveOnes()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(int, gpusPerNode);
        QFETCH(int, globalBatch);
        StrategySearchRequest r = request(model.toUtf8().constData(), "a100-80gb", nodes, gpusPerNode, globalBatch);
        r.top = 5;
        r.space.max_micro_batch_size = 2;
        NullProgress progress;
        const StrategySearchResult found = searchStrategies(r, progress);
        QVERIFY(!found.best.empty());
        QVERIFY(found.stats.simulated < found.stats.bounded); // the bound pruned something

        const HardwareModel hw(r.cluster, r.efficiency);
        std::vector<Estimate> all;
        for (const ParallelStrategy& s : enumerateStrategies(r)) {
            Estimate e = estimate(r.model, s, hw);
            if (e.problems.empty() && e.fits)
                all.push_back(std::move(e));
        }
        std::ranges::sort(all, sameOrder);
        QCOMPARE(found.best.size(), std::min<std::size_t>(5, all.size()));
        for (std::size_t i = 0; i < found.best.size(); ++i) {
            QCOMPARE(found.best[i].strategy.notation(), all[i].strategy.notation());
            QCOMPARE(found.best[i].iteration_ms, all[i].iteration_ms);
        }
    }

    void spaceHoldsEveryDividingDegree()
    {
        // 3 nodes of 8: 24 GPUs. PP 3 and DP 3 must be there, TP only what divides the heads.
        const StrategySearchRequest r = request("llama2-13b", "a100-80gb", 3, 8, 48);
        const std::vector<ParallelStrategy> space = enumerateStrategies(r);
        QVERIFY(!space.empty());
        bool pp3 = false;
        bool dp3 = false;
        bool interleaved = false;
        bool uneven = false;
        for (const ParallelStrategy& s : space) {
            QCOMPARE(s.world(), 24);
            QCOMPARE(r.model.num_heads % s.tp, 0);
            QCOMPARE(s.global_batch_size % (s.micro_batch_size * s.dp), 0);
            pp3 = pp3 || s.pp == 3;
            dp3 = dp3 || s.dp == 3;
            interleaved = interleaved || s.vpp > 1;
            uneven = uneven || s.last_stage_layers > 0;
        }
        QVERIFY(pp3);
        QVERIFY(dp3);
        QVERIFY(interleaved);
        QVERIFY(uneven);
    }

    // Ulysses (cp_comm_type a2a) is tried where Transformer Engine accepts it: each TP rank's query
    // and key/value heads divide by cp. Llama 3 8B has 32 heads and 8 key/value heads.
    void ulyssesWhereHeadsDivide_data()
    {
        QTest::addColumn<bool>("ulysses");
        QTest::newRow("ulysses on") << true;
        QTest::newRow("ulysses off") << false;
    }
    void ulyssesWhereHeadsDivide()
    {
        QFETCH(bool, ulysses);
        StrategySearchRequest r = request("llama3-8b", "h100-80gb", 2, 8, 16);
        r.model.seq_length = 32768;
        r.space.ulysses = ulysses;
        r.space.interleaved = false;
        r.space.uneven_layouts = false;
        int ring = 0;
        int a2a = 0;
        for (const ParallelStrategy& s : enumerateStrategies(r)) {
            if (s.cp == 1) {
                QCOMPARE(s.cp_comm_type, CpCommType::P2p);
            } else if (s.cp_comm_type == CpCommType::A2a) {
                ++a2a;
                QCOMPARE((r.model.num_kv_heads / s.tp) % s.cp, 0);
                QVERIFY(strategyProblems(s, r.model, 16).empty());
            } else {
                ++ring;
            }
        }
        QVERIFY(ring > 0);
        QCOMPARE(a2a > 0, ulysses);
    }

    void sameAnswerOnAnyThreadCount()
    {
        StrategySearchRequest r = request("llama2-70b", "h100-80gb", 8, 8, 128);
        NullProgress progress;
        r.threads = 1;
        const StrategySearchResult one = searchStrategies(r, progress);
        r.threads = 2;
        const StrategySearchResult two = searchStrategies(r, progress);
        QCOMPARE(one.best.size(), two.best.size());
        for (std::size_t i = 0; i < one.best.size(); ++i) {
            QCOMPARE(one.best[i].strategy.notation(), two.best[i].strategy.notation());
            QCOMPARE(one.best[i].iteration_ms, two.best[i].iteration_ms);
        }
        QCOMPARE(one.stats.bounded, two.stats.bounded);
    }

    void nothingFitsSaysHowFarOff()
    {
        StrategySearchRequest r = request("llama3-405b", "a100-40gb", 1, 8, 8);
        NullProgress progress;
        const StrategySearchResult result = searchStrategies(r, progress);
        QVERIFY(result.best.empty());
        QVERIFY(result.least_memory.has_value());
        QVERIFY(result.least_memory->peak_memory_mb > 40000);
        QCOMPARE(result.stats.over_memory + result.stats.refused, result.stats.enumerated);
    }

    void cancels()
    {
        const StrategySearchRequest r = request("llama2-70b", "h100-80gb", 8, 8, 128);
        CancelFlagProgress progress;
        progress.cancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, searchStrategies(r, progress));
    }

    void planFileRoundTrip()
    {
        StrategySearchRequest r = request("llama2-70b", "h100-80gb", 8, 8, 128);
        NullProgress progress;
        const StrategySearchResult result = searchStrategies(r, progress);
        QVERIFY(!result.best.empty());
        QTemporaryDir dir;
        const QString path = dir.filePath("plan.json");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(planFileJson(r.model, r.cluster, result.best.front()).dump(2)));
        file.close();
        QVERIFY(isPlanFile(path.toStdString()));
        const PlanFile plan = PlanFile::load(path.toStdString());
        QCOMPARE(plan.cluster.worldSize(), 64);
        QVERIFY(plan.strategy == result.best.front().strategy);
        QVERIFY(plan.assumptions.empty()); // every field was written
    }

    void timeScalesMoveTheirComponent_data()
    {
        QTest::addColumn<int>("component"); // 0 compute, 1 tp, 2 cp, 3 ep, 4 dp, 5 pp
        QTest::newRow("compute") << 0;
        QTest::newRow("tp") << 1;
        QTest::newRow("cp") << 2;
        QTest::newRow("dp") << 4;
        QTest::newRow("pp") << 5;
    }

    void timeScalesMoveTheirComponent()
    {
        QFETCH(int, component);
        const StrategySearchRequest r = request("llama2-13b", "a100-80gb", 4, 8, 64);
        ParallelStrategy s;
        s.tp = 4;
        s.pp = 2;
        s.dp = 4;
        s.zero = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 64;
        s.overlap_grad_reduce = false; // DP traffic exposed, so that its scale shows
        if (component == 2) { // Ulysses: its all-to-alls are never hidden, so their scale shows
            s.pp = 1;
            s.cp = 2;
            s.cp_comm_type = CpCommType::A2a;
        }
        const HardwareModel hw(r.cluster, r.efficiency);
        const double base = estimate(r.model, s, hw).iteration_ms;
        EstimateOptions slower;
        double TimeScales::*const members[] = { &TimeScales::compute, &TimeScales::tp, &TimeScales::cp, &TimeScales::ep,
            &TimeScales::dp, &TimeScales::pp };
        slower.scales.*members[component] = 1.5;
        const Estimate scaled = estimate(r.model, s, hw, slower);
        QVERIFY2(scaled.iteration_ms > base, qPrintable(QString("%1 ms, %2 ms").arg(scaled.iteration_ms).arg(base)));
        QCOMPARE(scaled.peak_memory_mb, estimate(r.model, s, hw).peak_memory_mb);
    }

    void rankingRobustnessIsConsistent()
    {
        StrategySearchRequest r = request("llama2-70b", "h100-80gb", 8, 8, 128);
        r.top = 6;
        NullProgress progress;
        const StrategySearchResult result = searchStrategies(r, progress);
        QCOMPARE(int(result.best.size()), 6);
        const std::vector<PlanRobustness> robustness = rankingRobustness(
            r.model, HardwareModel(r.cluster, r.efficiency), result.best, r.memory_limit_mb, progress);
        QCOMPARE(robustness.size(), result.best.size());
        for (std::size_t i = 0; i < robustness.size(); ++i) {
            const PlanRobustness& p = robustness[i];
            const int rank = int(i) + 1;
            QVERIFY(p.band_5.best <= rank && rank <= p.band_5.worst); // the model itself is a what-if
            QVERIFY(p.band_10.best <= p.band_5.best && p.band_5.worst <= p.band_10.worst); // bands nest
            QCOMPARE(p.robust_5, p.band_5.worst == 1);
            QVERIFY(!p.robust_10 || p.robust_5);
            if (i > 0)
                QVERIFY(!p.robust_5); // only the fastest can stay the fastest
        }
    }

    void strategyErrorsNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("keyPath");
        QTest::newRow("no batch") << "{'tp': 2}"
                                  << "/global_batch_size";
        QTest::newRow("tp 0") << "{'tp': 0, 'global_batch_size': 8}"
                              << "/tp";
        QTest::newRow("zero 4") << "{'zero': 4, 'global_batch_size': 8}"
                                << "/zero";
        QTest::newRow("bad recompute") << "{'recompute': 'some', 'global_batch_size': 8}"
                                       << "/recompute";
        QTest::newRow("bad schedule") << "{'schedule': 'v', 'global_batch_size': 8}"
                                      << "/schedule";
        QTest::newRow("sp as number") << "{'sequence_parallel': 1, 'global_batch_size': 8}"
                                      << "/sequence_parallel";
        QTest::newRow("recompute module") << "{'recompute': 'selective', 'recompute_modules': ['moe', 'attn'], "
                                             "'global_batch_size': 8}"
                                          << "/recompute_modules/1";
        QTest::newRow("cp comm type") << "{'cp': 2, 'cp_comm_type': 'ring', 'global_batch_size': 8}"
                                      << "/cp_comm_type";
    }

    void strategyErrorsNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, keyPath);
        const JsonDocument document = JsonDocument::parse(json.replace('\'', '"').toStdString(), "s.json");
        try {
            readStrategy(document.root(), model::modelPreset("llama2-7b"), 8);
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
        }
    }
};

QTEST_GUILESS_MAIN(TestStrategySearch)
#include "tst_strategy_search.moc"
