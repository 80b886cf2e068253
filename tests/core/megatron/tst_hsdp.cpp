// SPDX-License-Identifier: GPL-3.0-or-later
// HSDP, hybrid sharded data parallelism (core/megatron/hsdp.*, docs/hsdp.md): the shard and
// replica groups in Megatron's rank order, the rules, the model state sharded over the shard
// group, the shard group's reduce-scatter followed by the replicas' all-reduce, the strategy JSON,
// the exports, the evidence, and a search that shards inside a node where that wins.
#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/common/progress.h"
#include "core/export/plan_file_export.h"
#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/dp_traffic.h"
#include "core/megatron/estimate.h"
#include "core/megatron/hsdp.h"
#include "core/megatron/plan_evidence.h"
#include "core/megatron/plan_file.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search.h"
#include "core/model/model_presets.h"

#include "tests/support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

hardware::ClusterDescription h100(int nodes) { return test::h100Cluster(nodes); }

ParallelStrategy strategy(int tp, int cp, int dp, int zero, int dpShard, int gbs)
{
    ParallelStrategy s;
    s.tp = tp;
    s.cp = cp;
    s.dp = dp;
    s.sequence_parallel = tp > 1;
    s.zero = zero;
    s.dp_shard = dpShard;
    s.global_batch_size = gbs;
    s.recompute = Recompute::Full;
    return s;
}

Estimate estimateOf(const char* model, const ParallelStrategy& s, int nodes)
{
    const hardware::ClusterDescription c = h100(nodes);
    return estimate(model::modelPreset(model), s, hardware::HardwareModel(c, hardware::efficiencyFor(c)));
}

} // namespace

class TestHsdp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Megatron's groups (parallel_state.py @ d98e8a64): a shard group is dp_shard x cp consecutive
    // data-parallel ranks, stride tp; its replicas lie tp x cp x dp_shard ranks apart; the expert
    // data-parallel group splits into the same number of replicas.
    void groupsFollowMegatronsRankOrder_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("dpShard");
        QTest::addColumn<int>("ep");
        QTest::addColumn<QList<int>>("expected"); // shard size, stride; replicate size, stride; expert ditto
        QTest::newRow("tp1 node shard") << 1 << 1 << 128 << 8 << 1 << QList<int> { 8, 1, 16, 8, 8, 1, 16, 8 };
        QTest::newRow("tp2 cp2 node shard") << 2 << 2 << 64 << 2 << 1 << QList<int> { 4, 2, 32, 8, 8, 1, 32, 8 };
        QTest::newRow("tp1 cp8 shard over cp") << 1 << 8 << 512 << 1 << 1 << QList<int> { 8, 1, 512, 8, 8, 1, 512, 8 };
        QTest::newRow("experts ep8") << 1 << 1 << 256 << 16 << 8 << QList<int> { 16, 1, 16, 16, 2, 8, 16, 16 };
    }
    void groupsFollowMegatronsRankOrder()
    {
        QFETCH(int, tp);
        QFETCH(int, cp);
        QFETCH(int, dp);
        QFETCH(int, dpShard);
        QFETCH(int, ep);
        QFETCH(QList<int>, expected);
        ParallelStrategy s = strategy(tp, cp, dp, 3, dpShard, dp);
        s.ep = ep;
        const HsdpGroups g = hsdpGroups(s);
        const QList<int> found { g.dense_shard.size, g.dense_shard.stride, g.dense_replicate.size,
            g.dense_replicate.stride, g.expert_shard.size, g.expert_shard.stride, g.expert_replicate.size,
            g.expert_replicate.stride };
        QCOMPARE(found, expected);
    }

    // The rules: a divisor of dp, ZeRO >= 1, a framework with hybrid sharding, expert data
    // parallelism divisible into the replicas; dp_shard 0 and dp are today's ZeRO.
    void problems_data()
    {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("dpShard");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("problem"); // a part of the first problem; empty: none
        QTest::newRow("default") << 16 << 3 << 0 << "megatron-core" << 1 << "";
        QTest::newRow("whole dp") << 16 << 3 << 16 << "megatron-core" << 1 << "";
        QTest::newRow("node") << 16 << 1 << 8 << "megatron-core" << 1 << "";
        QTest::newRow("torchtitan") << 16 << 3 << 8 << "torchtitan" << 1 << "";
        QTest::newRow("not a divisor") << 16 << 3 << 6 << "megatron-core" << 1 << "must divide dp 16";
        QTest::newRow("zero 0") << 16 << 0 << 8 << "megatron-core" << 1 << "needs ZeRO >= 1";
        QTest::newRow("deepspeed") << 16 << 3 << 8 << "deepspeed" << 1 << "no hybrid sharding";
        QTest::newRow("experts split") << 16 << 3 << 2 << "megatron-core" << 16 << "expert data-parallel group";
    }
    void problems()
    {
        QFETCH(int, dp);
        QFETCH(int, zero);
        QFETCH(int, dpShard);
        QFETCH(QString, framework);
        QFETCH(int, ep);
        QFETCH(QString, problem);
        ParallelStrategy s = strategy(1, 1, dp, zero, dpShard, dp);
        s.framework = *parseFramework(framework.toStdString());
        s.ep = ep;
        const std::vector<std::string> found = hsdpProblems(s);
        if (problem.isEmpty()) {
            QVERIFY2(found.empty(), found.empty() ? "" : found.front().c_str());
        } else {
            QVERIFY(!found.empty());
            QVERIFY2(QString::fromStdString(found.front()).contains(problem), found.front().c_str());
        }
    }

    // The model state: the optimizer's shard is dp / dp_shard times larger (over dp_shard x cp
    // ranks instead of dp x cp); the weights too at ZeRO-3; nothing changes at dp_shard = dp.
    void stateShardsOverTheShardGroup_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("dpShard");
        QTest::addColumn<double>("optimizerRatio"); // HSDP's optimizer MB / plain ZeRO's
        QTest::newRow("zero1 node") << 1 << 8 << 16.0;
        QTest::newRow("zero3 node") << 3 << 8 << 16.0;
        QTest::newRow("zero3 two nodes") << 3 << 16 << 8.0;
        QTest::newRow("zero3 whole dp") << 3 << 128 << 1.0;
    }
    void stateShardsOverTheShardGroup()
    {
        QFETCH(int, zero);
        QFETCH(int, dpShard);
        QFETCH(double, optimizerRatio);
        const Estimate plain = estimateOf("llama3-8b", strategy(1, 1, 128, zero, 0, 512), 16);
        const Estimate hybrid = estimateOf("llama3-8b", strategy(1, 1, 128, zero, dpShard, 512), 16);
        const double ratio = hybrid.stages.front().memory.optimizer_mb / plain.stages.front().memory.optimizer_mb;
        QVERIFY2(std::abs(ratio - optimizerRatio) < 1e-9, qPrintable(QString::number(ratio)));
        if (zero == 3 && dpShard < 128)
            QVERIFY(hybrid.stages.front().memory.weights_mb > plain.stages.front().memory.weights_mb);
    }

    // The collectives: each gradient reduction is the shard group's reduce-scatter plus the
    // all-reduce of its shard across the replicas, each gather the shard group's all-gather; a
    // node's shard group stays on NVLink, its replicas cross the network.
    void trafficRunsOnTheShardAndReplicaGroups_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("bf16Grads"); // Megatron's --grad-reduce-in-bf16 (main_grads_dtype)
        QTest::addColumn<double>("gradBytes"); // what a gradient element is reduced in
        QTest::newRow("zero1") << 1 << false << 4.0;
        QTest::newRow("zero2") << 2 << false << 4.0;
        QTest::newRow("zero3") << 3 << false << 4.0;
        QTest::newRow("zero1 bf16 grads") << 1 << true << 2.0;
        QTest::newRow("zero3 bf16 grads") << 3 << true << 2.0;
    }
    void trafficRunsOnTheShardAndReplicaGroups()
    {
        QFETCH(int, zero);
        QFETCH(bool, bf16Grads);
        QFETCH(double, gradBytes);
        const hardware::ClusterDescription c = h100(16);
        const hardware::HardwareModel hw(c, hardware::efficiencyFor(c));
        ParallelStrategy s = strategy(1, 1, 128, zero, 8, 512);
        s.overlap_grad_reduce = false; // one bucket: the sums below are the collectives themselves
        if (bf16Grads)
            s.main_grads_dtype = StateDtype::Bf16;
        const HsdpGroups g = hsdpGroups(s);
        QVERIFY(!hw.spansNodes(g.dense_shard));
        QVERIFY(hw.spansNodes(g.dense_replicate));
        const double params = 1e9;
        const int layers = 32;
        const DpTraffic t = dpTrafficTimes(s, hw, { 128, 1 }, { 128, 1 }, params, 0, layers, 1.0);
        if (zero == 3) {
            QCOMPARE(t.gather_s, hw.allGatherS(2 * params / layers, g.dense_shard));
            QCOMPARE(t.reduce_s,
                hw.reduceScatterS(gradBytes * params / layers, g.dense_shard)
                    + hw.allReduceS(gradBytes * params / layers / 8, g.dense_replicate));
        } else {
            QCOMPARE(t.grad_s,
                hw.reduceScatterS(gradBytes * params, g.dense_shard) + hw.allReduceS(gradBytes * params / 8, g.dense_replicate));
            QCOMPARE(t.gather_total_s, hw.allGatherS(2 * params, g.dense_shard));
        }
        // dp_shard = dp is plain ZeRO: dp_traffic.cpp's own collectives.
        ParallelStrategy whole = s;
        whole.dp_shard = 128;
        const DpTraffic flat = dpTrafficTimes(whole, hw, { 128, 1 }, { 128, 1 }, params, 0, layers, 1.0);
        whole.dp_shard = 0;
        const DpTraffic flat0 = dpTrafficTimes(whole, hw, { 128, 1 }, { 128, 1 }, params, 0, layers, 1.0);
        QCOMPARE(flat.grad_s + flat.reduce_s + flat.gather_s, flat0.grad_s + flat0.reduce_s + flat0.gather_s);
    }

    // Where HSDP wins: ZeRO-3 across 4,096 ranks pays each per-layer ring's 4,095 steps of latency;
    // gathered inside the node and reduced across 512 replicas it exposes less.
    void zero3AtScaleExposesLessSharded()
    {
        const Estimate plain = estimateOf("llama3-8b", strategy(1, 1, 4096, 3, 0, 4096), 512);
        const Estimate hybrid = estimateOf("llama3-8b", strategy(1, 1, 4096, 3, 8, 4096), 512);
        QVERIFY2(hybrid.dp_exposed_ms < plain.dp_exposed_ms,
            qPrintable(QString("%1 vs %2 ms").arg(hybrid.dp_exposed_ms).arg(plain.dp_exposed_ms)));
        QVERIFY(hybrid.iteration_ms < plain.iteration_ms);
        QVERIFY(hybrid.peak_memory_mb > plain.peak_memory_mb);
    }

    // The strategy JSON: "dp_shard" written only when it is smaller than dp (every plan without HSDP
    // keeps its bytes), read back, and refused with its key path when it cannot run.
    void jsonRoundTrip_data()
    {
        QTest::addColumn<int>("dpShard");
        QTest::addColumn<bool>("written");
        QTest::addColumn<QString>("notation");
        QTest::newRow("default") << 0 << false << "tp1 pp1 dp16 zero3 rc-full mbs1 gbs64";
        QTest::newRow("dp") << 16 << false << "tp1 pp1 dp16 zero3 rc-full mbs1 gbs64";
        QTest::newRow("node") << 8 << true << "tp1 pp1 dp16 zero3 hsdp8 rc-full mbs1 gbs64";
    }
    void jsonRoundTrip()
    {
        QFETCH(int, dpShard);
        QFETCH(bool, written);
        QFETCH(QString, notation);
        const ParallelStrategy s = strategy(1, 1, 16, 3, dpShard, 64);
        QCOMPARE(QString::fromStdString(s.notation()), notation);
        const nlohmann::ordered_json json = toJson(s);
        QCOMPARE(json.contains("dp_shard"), written);
        const JsonDocument document = JsonDocument::parse(json.dump(), "s.json");
        const ParallelStrategy back = readStrategy(document.root(), model::modelPreset("llama3-8b"), 16);
        QCOMPARE(back.dpShard(), s.dpShard());
        QCOMPARE(back.dp_shard, written ? dpShard : 0);
    }

    void jsonErrorsNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::newRow("not a divisor") << "{'dp': 16, 'zero': 3, 'dp_shard': 6, 'global_batch_size': 64}";
        QTest::newRow("beyond dp") << "{'dp': 16, 'zero': 3, 'dp_shard': 32, 'global_batch_size': 64}";
        QTest::newRow("negative") << "{'dp': 16, 'zero': 3, 'dp_shard': -2, 'global_batch_size': 64}";
        QTest::newRow("zero 0") << "{'dp': 16, 'zero': 0, 'dp_shard': 8, 'global_batch_size': 64}";
    }
    void jsonErrorsNameTheKey()
    {
        QFETCH(QString, json);
        const JsonDocument document = JsonDocument::parse(json.replace('\'', '"').toStdString(), "s.json");
        try {
            readStrategy(document.root(), model::modelPreset("llama3-8b"), 16);
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), QString("/dp_shard"));
        }
    }

    // The exports say it in each framework's terms: Megatron's and Megatron-Bridge's distributed
    // optimizer instances (dp / dp_shard), torchtitan's replicate x shard degrees; Galvatron, which
    // cannot, says so.
    void exportsSayIt_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("text");
        QTest::newRow("megatron") << int(exporting::ExportFormat::Megatron) << "--num-distributed-optimizer-instances 2";
        QTest::newRow("megatron-bridge") << int(exporting::ExportFormat::MegatronBridge)
                                         << "ddp.num_distributed_optimizer_instances = 2";
        QTest::newRow("torchtitan replicate") << int(exporting::ExportFormat::Torchtitan)
                                              << "data_parallel_replicate_degree = 2";
        QTest::newRow("torchtitan shard") << int(exporting::ExportFormat::Torchtitan)
                                          << "data_parallel_shard_degree = 8";
        QTest::newRow("galvatron") << int(exporting::ExportFormat::Galvatron) << "HSDP planned";
    }
    void exportsSayIt()
    {
        QFETCH(int, format);
        QFETCH(QString, text);
        ParallelStrategy s = strategy(1, 1, 16, 3, 8, 64);
        s.recompute = Recompute::None;
        if (exporting::ExportFormat(format) == exporting::ExportFormat::Torchtitan)
            s.framework = Framework::Torchtitan;
        if (exporting::ExportFormat(format) == exporting::ExportFormat::MegatronBridge)
            s.framework = Framework::MegatronBridge;
        const hardware::ClusterDescription c = h100(2);
        const model::ModelDescription m = model::modelPreset("llama3-8b");
        const Estimate e = estimate(m, s, hardware::HardwareModel(c, hardware::efficiencyFor(c)));
        const exporting::ExportedFile file
            = exporting::exportPlanFileText(exporting::ExportFormat(format), planFileText(m, c, e), "hsdp.json");
        QString all = QString::fromStdString(file.text);
        for (const exporting::ExportNote& note : file.notes)
            all += "\n" + QString::fromStdString(note.text);
        QVERIFY2(all.contains(text), qPrintable(all.left(4000)));
    }

    // Evidence: no bundled reference run shards inside a group (none of resources/reference-runs
    // says so), so an HSDP plan is extrapolated and says why; a coverage with such a run covers it.
    void evidenceSaysWhetherARunCoversIt()
    {
        const model::ModelDescription m = model::modelPreset("llama3-8b");
        const hardware::ClusterDescription c = h100(2);
        const ParallelStrategy hybrid = strategy(1, 1, 16, 3, 8, 64);
        QCOMPARE(bundledCoverage().max_hsdp_replicas, 0);
        const PlanEvidence bundled = planEvidence(bundledCoverage(), m, c, hybrid);
        QVERIFY(bundled.extrapolated);
        QVERIFY(std::ranges::any_of(bundled.notes, [](const std::string& n) {
            return n.find("no reference run uses HSDP") != std::string::npos;
        }));
        QVERIFY(!planEvidence(bundledCoverage(), m, c, strategy(1, 1, 16, 3, 0, 64)).extrapolated);
        EvidenceCoverage covered = bundledCoverage();
        addToCoverage(covered, m, c, hybrid);
        QCOMPARE(covered.max_hsdp_replicas, 2);
        QVERIFY(!planEvidence(covered, m, c, hybrid).extrapolated);
    }

    // The search: HSDP shapes only with ZeRO >= 1 and a framework that has it; on 512 nodes the
    // fastest plan shards inside a node (no coverage: ranked by time alone), and without the
    // dimension it cannot.
    void searchShardsInsideANodeAtScale()
    {
        StrategySearchRequest r;
        r.model = model::modelPreset("llama3-8b");
        r.cluster = h100(512);
        r.efficiency = hardware::efficiencyFor(r.cluster);
        r.global_batch_size = 4096;
        r.threads = 1;
        r.space.max_pp = 1;
        r.space.recomputes = { Recompute::None };
        r.space.max_micro_batch_size = 1;
        NullProgress progress;
        const StrategySearchResult with = searchStrategies(r, progress);
        QVERIFY(!with.best.empty());
        QVERIFY2(with.best.front().strategy.dpReplicas() > 1, with.best.front().strategy.notation().c_str());
        r.space.hsdp = false;
        const StrategySearchResult without = searchStrategies(r, progress);
        QVERIFY(!without.best.empty());
        QCOMPARE(without.best.front().strategy.dpReplicas(), 1);
        QVERIFY(with.best.front().iteration_ms < without.best.front().iteration_ms);
        QVERIFY(with.stats.enumerated > without.stats.enumerated);
    }

    void searchSpaceHoldsHsdpWhereItCan_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("hsdp");
        QTest::newRow("megatron-core") << "megatron-core" << true;
        QTest::newRow("torchtitan") << "torchtitan" << true;
        QTest::newRow("deepspeed") << "deepspeed" << false;
    }
    void searchSpaceHoldsHsdpWhereItCan()
    {
        QFETCH(QString, framework);
        QFETCH(bool, hsdp);
        StrategySearchRequest r;
        r.model = model::modelPreset("llama3-8b");
        r.cluster = h100(4);
        r.efficiency = hardware::efficiencyFor(r.cluster);
        r.global_batch_size = 64;
        r.space.framework = *parseFramework(framework.toStdString());
        bool any = false;
        for (const ParallelStrategy& s : enumerateStrategies(r)) {
            if (s.dp_shard == 0)
                continue;
            any = true;
            QVERIFY(s.zero >= 1);
            QVERIFY(s.dpReplicas() > 1);
            QCOMPARE(s.tp * s.cp * s.dpShard() % 8, 0); // the node or the NVLink domain (8 GPUs here)
        }
        QCOMPARE(any, hsdp);
    }
};

QTEST_GUILESS_MAIN(TestHsdp)
#include "tst_hsdp.moc"
