// SPDX-License-Identifier: GPL-3.0-or-later
// MoE token dispatch (core/megatron/moe_dispatch.*, docs/moe.md): how many nodes and ranks a token
// reaches, what each Megatron-Core dispatcher sends, and what --overlap-moe-expert-parallel-comm
// leaves exposed; the strategy fields that carry them through JSON, Megatron's rules and the export.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/export/megatron_flags.h"
#include "core/hardware/kernel_shapes.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/moe_dispatch.h"
#include "core/megatron/moe_kernels.h"
#include "core/megatron/strategy_json.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::h100s;

// Qwen3-235B-A22B as the model zoo's H100 rows run it: TP 2, PP 8, VPP 4, EP 32 over 256 GPUs.
ParallelStrategy zooStrategy()
{
    ParallelStrategy s;
    s.tp = 2;
    s.pp = 8;
    s.vpp = 4;
    s.ep = 32;
    s.dp = 16;
    s.sequence_parallel = true;
    s.schedule = PipelineSchedule::Interleaved;
    s.global_batch_size = 2048;
    return s;
}

// Qwen3-235B-A22B's MoE shapes (yanring/Megatron-MoE-ModelZoo Qwen3-235B-A22B.yaml, the moezoo-*
// records): 128 experts, top 8, expert FFN 1536, hidden 4096, on Mixtral 8x7B's attention (no
// preset of its own).
model::ModelDescription qwen3Like()
{
    model::ModelDescription model = model::modelPreset("mixtral-8x7b");
    model.moe->num_experts = 128;
    model.moe->top_k = 8;
    model.moe->expert_ffn_hidden_size = 1536;
    return model;
}

} // namespace

class TestMoeDispatch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // E[distinct groups] = g (1 - C(E - E/g, k) / C(E, k)); group-limited routing counts router
    // groups instead of experts (DeepSeek-V3: 8 groups, top 4).
    void distinctGroupsOfATokensExperts_data()
    {
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("topK");
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("routerGroups");
        QTest::addColumn<int>("routerGroupTopK");
        QTest::addColumn<double>("expected");
        // 4 x (1 - C(96, 8) / C(128, 8)): Qwen3-235B's top 8 of 128 over the 4 nodes of EP 32.
        QTest::newRow("qwen3 235b, 4 nodes") << 128 << 8 << 4 << 0 << 0 << 3.6290109244257005;
        // 16 x (1 - C(120, 8) / C(128, 8)): the same over 16 EP ranks.
        QTest::newRow("qwen3, 16 ranks") << 128 << 8 << 16 << 0 << 0 << 6.596512811001903;
        // Mixtral: top 2 of 8 experts on 8 ranks, always two ranks.
        QTest::newRow("mixtral ep8") << 8 << 2 << 8 << 0 << 0 << 2.0;
        // DeepSeek-V3 on 8 nodes, one router group per node: 8 x (1 - C(7, 4) / C(8, 4)) = 4.
        QTest::newRow("deepseek-v3 group-limited") << 256 << 8 << 8 << 8 << 4 << 4.0;
        // Router groups that do not fill whole nodes: the expert count rules.
        QTest::newRow("groups not per node") << 64 << 2 << 4 << 6 << 2 << 4 * (1 - (48.0 / 64) * (47.0 / 63));
        QTest::newRow("one group") << 128 << 8 << 1 << 0 << 0 << 1.0;
        QTest::newRow("every expert chosen") << 16 << 16 << 2 << 0 << 0 << 2.0;
    }
    void distinctGroupsOfATokensExperts()
    {
        QFETCH(int, experts);
        QFETCH(int, topK);
        QFETCH(int, groups);
        QFETCH(int, routerGroups);
        QFETCH(int, routerGroupTopK);
        QFETCH(double, expected);
        QVERIFY2(
            std::abs(expectedDistinctGroups(experts, topK, groups, routerGroups, routerGroupTopK) - expected) < 1e-9,
            qPrintable(QString::number(expectedDistinctGroups(experts, topK, groups, routerGroups, routerGroupTopK))));
    }

    // What each dispatcher sends per pass, against the all-to-all of top-k copies: DeepEP (flex)
    // sends a token once per node over RDMA; with top-1 routing there is nothing to deduplicate
    // and flex costs what the all-to-all does. The all-gather dispatcher moves every rank's
    // tokens to every rank, not top-k copies.
    void dispatchersAgainstTheAllToAll_data()
    {
        QTest::addColumn<int>("topK");
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("dispatcher");
        QTest::addColumn<double>("minRatio");
        QTest::addColumn<double>("maxRatio");
        // Network bound: the RDMA copies fall from k (n - ppn) / n = 6 to 3.63 x 3/4 = 2.72 per token.
        QTest::newRow("flex, top-8, 4 nodes") << 8 << 32 << "flex" << 0.40 << 0.50;
        QTest::newRow("flex, top-1, 4 nodes") << 1 << 32 << "flex" << 0.999999 << 1.000001;
        QTest::newRow("flex, top-8, one node") << 8 << 8 << "flex" << 0.0 << 1.0;
        QTest::newRow("alltoall") << 8 << 32 << "alltoall" << 1.0 << 1.0;
        // Top-1 over 4 nodes: a node receives the 24 remote ranks' tokens (3 per NIC) where the
        // all-to-all sends 3/4 of a rank's tokens off the node.
        QTest::newRow("allgather, top-1, 4 nodes") << 1 << 32 << "allgather" << 1.0 << 1e9;
    }
    void dispatchersAgainstTheAllToAll()
    {
        QFETCH(int, topK);
        QFETCH(int, ep);
        QFETCH(QString, dispatcher);
        QFETCH(double, minRatio);
        QFETCH(double, maxRatio);
        model::ModelDescription model = qwen3Like();
        model.moe->top_k = topK;
        const HardwareModel hw = h100s(32);
        ParallelStrategy s = zooStrategy();
        s.ep = ep;
        const double tokens = 4096.0 / s.tp;
        const double allToAll = moeDispatchPassS(model, s, hw, tokens);
        s.moe_token_dispatcher = *parseMoeDispatcher(dispatcher.toStdString());
        const double ratio = moeDispatchPassS(model, s, hw, tokens) / allToAll;
        QVERIFY2(ratio >= minRatio && ratio <= maxRatio, qPrintable(QString::number(ratio)));
    }

    // Combined 1F1B (model_chunk_schedule_plan.py, TransformerLayerSchedulePlan.run): two streams in
    // issue order, communication combine (b), dispatch (f), dispatch (b), combine (f); compute
    // pre_dispatch (f), mlp dgrad (b), mlp wgrad (b), mlp (f), pre_dispatch (b); each operation
    // waits for the one whose output it takes. The critical paths below are worked by hand.
    void combinedScheduleFollowsDependencies_data()
    {
        QTest::addColumn<double>("a2a"); // one dispatch or combine
        QTest::addColumn<double>("preF");
        QTest::addColumn<double>("dgrad");
        QTest::addColumn<double>("wgrad");
        QTest::addColumn<double>("mlpF");
        QTest::addColumn<double>("preB");
        QTest::addColumn<int>("layers");
        QTest::addColumn<double>("slowdown");
        QTest::addColumn<double>("chunkS");
        // Compute 9 s hides all 4 s of communication.
        QTest::newRow("hidden") << 1.0 << 2.0 << 1.0 << 1.0 << 1.0 << 4.0 << 1 << 1.0 << 9.0;
        // a2a 3: combine (b) 0-3, dispatch (f) 3-6 (after pre_dispatch (f) 0-2), dispatch (b) 6-9,
        // combine (f) 9-12; mlp (f) 6-7; pre_dispatch (b) 9-13.
        QTest::newRow("long all-to-alls") << 3.0 << 2.0 << 1.0 << 1.0 << 1.0 << 4.0 << 1 << 1.0 << 13.0;
        // dispatch (b) waits for the 3 s dgrad (1-4): 4-5, then combine (f) 5-6; a rigid three-step
        // split would hide it under the dgrad (5.5 s).
        QTest::newRow("dispatch waits for dgrad") << 1.0 << 0.5 << 3.0 << 0.0 << 0.5 << 0.5 << 1 << 1.0 << 6.0;
        // Two layers: the second's combine (b) waits for the first's pre_dispatch (b) (ends 9).
        QTest::newRow("two layers") << 1.0 << 2.0 << 1.0 << 1.0 << 1.0 << 4.0 << 2 << 1.0 << 18.0;
        // Half speed beside the combine (b): pre_dispatch (f) 0.5 s of work by 1, the rest alone
        // (ends 2.5); then dispatch (f) 2.5-3.5, dispatch (b) 3.5-4.5, combine (f) 4.5-5.5.
        QTest::newRow("slowed compute") << 1.0 << 2.0 << 0.0 << 0.0 << 0.0 << 0.0 << 1 << 2.0 << 5.5;
    }
    void combinedScheduleFollowsDependencies()
    {
        QFETCH(double, a2a);
        QFETCH(double, preF);
        QFETCH(double, dgrad);
        QFETCH(double, wgrad);
        QFETCH(double, mlpF);
        QFETCH(double, preB);
        QFETCH(int, layers);
        QFETCH(double, slowdown);
        QFETCH(double, chunkS);
        CombinedLayerPass pass;
        pass.a2a_s = a2a;
        pass.pre_dispatch_forward_s = preF;
        pass.mlp_dgrad_s = dgrad;
        pass.mlp_wgrad_s = wgrad;
        pass.mlp_forward_s = mlpF;
        pass.pre_dispatch_backward_s = preB;
        const double got = combined1f1bChunkS(pass, layers, slowdown);
        QVERIFY2(std::abs(got - chunkS) < 1e-9, qPrintable(QString::number(got)));
    }

    // The host inside the combined 1F1B: it issues the pair's nine nodes in run()'s order, a node
    // starts no earlier than issued, and the forward's dispatch holds the host until it starts
    // (fused_a2a.py: "the CPU will wait for GPU's signal to arrive"). Compute (s): pre_dispatch
    // forward 2, dgrad 1, wgrad 1, mlp forward 1, pre_dispatch backward 4; all-to-alls 1; one layer.
    // Without host time the pair takes 9 s (the "hidden" row above).
    void hostIssueHoldsThePair_data()
    {
        QTest::addColumn<double>("preFHost");
        QTest::addColumn<double>("preBHost");
        QTest::addColumn<double>("chunkS");
        QTest::newRow("host never behind") << 0.0 << 0.0 << 9.0;
        // pre_dispatch (b) issued 3 s after the dispatch (f) starts (2): 5-9, as without the host.
        QTest::newRow("host time under the compute") << 0.0 << 3.0 << 9.0;
        // The host waits in dispatch (f) until it starts at 2, then takes 5 s to issue pre_dispatch
        // (b): it runs 7-11. A host that did not wait would have issued it at 5 (9 s).
        QTest::newRow("host waits in the forward dispatch") << 0.0 << 5.0 << 11.0;
        // pre_dispatch (f) issued at 1: 1-3; dgrad 3-4, dispatch (f) 3-4, wgrad 4-5, dispatch (b)
        // 4-5, mlp (f) 5-6, combine (f) 6-7, pre_dispatch (b) 6-10.
        QTest::newRow("late forward issue") << 1.0 << 0.0 << 10.0;
    }
    void hostIssueHoldsThePair()
    {
        QFETCH(double, preFHost);
        QFETCH(double, preBHost);
        QFETCH(double, chunkS);
        CombinedLayerPass pass;
        pass.a2a_s = 1;
        pass.pre_dispatch_forward_s = 2;
        pass.mlp_dgrad_s = 1;
        pass.mlp_wgrad_s = 1;
        pass.mlp_forward_s = 1;
        pass.pre_dispatch_backward_s = 4;
        pass.host.pre_dispatch_forward_s = preFHost;
        pass.host.pre_dispatch_backward_s = preBHost;
        const double got = combined1f1bChunkS(pass, 1, 1.0);
        QVERIFY2(std::abs(got - chunkS) < 1e-9, qPrintable(QString::number(got)));
    }

    // The nodes' host times add up to the layer's forward operations once and its backward's twice
    // (moe_kernels.h moeForwardHostOps, host_overhead.h), at the eager host time per operation.
    void hostIssueCountsTheLayersOperations_data()
    {
        QTest::addColumn<double>("localExperts");
        QTest::addColumn<bool>("fp8");
        QTest::newRow("4 experts bf16 (EP 32 of 128)") << 4.0 << false;
        QTest::newRow("16 experts bf16 (EP 8 of 128)") << 16.0 << false;
        QTest::newRow("8 experts fp8") << 8.0 << true;
    }
    void hostIssueCountsTheLayersOperations()
    {
        QFETCH(double, localExperts);
        QFETCH(bool, fp8);
        const CombinedHostIssue h = combinedHostIssue(localExperts, fp8);
        const double forward = h.pre_dispatch_forward_s + h.dispatch_forward_s + h.mlp_forward_s + h.combine_forward_s;
        const double backward = h.combine_backward_s + h.mlp_dgrad_s + h.mlp_wgrad_s + h.dispatch_backward_s
            + h.pre_dispatch_backward_s;
        const double ops = moeForwardHostOps(localExperts, fp8);
        QVERIFY2(std::abs(forward - eagerHostS(int(ops))) < 1e-12, qPrintable(QString::number(forward)));
        QVERIFY2(std::abs(backward - 2 * eagerHostS(int(ops))) < 1e-12, qPrintable(QString::number(backward)));
    }

    // The layer's exposure: what a paired forward + backward takes beyond its compute, halved per
    // pass; DeepEP's 20 (flex) or NCCL's 16 (alltoall) of the H100's 132 SMs slow the compute that
    // runs beside them, each second of communication costing 20/132 or 16/132 s of compute. Warm-up
    // and cool-down passes (pp 1: the first forward, the last backward) have no partner.
    void overlapLeavesWhatComputeCannotCover_data()
    {
        QTest::addColumn<bool>("overlap");
        QTest::addColumn<QString>("dispatcher");
        QTest::addColumn<double>("passS"); // dispatch + combine of one pass
        QTest::addColumn<double>("pairExposed"); // per forward + backward pair, when paired
        // Compute (s): pre_dispatch forward 2, mlp forward 1, pre_dispatch backward 4, mlp backward 2
        // (dgrad 1, wgrad 1).
        QTest::newRow("off") << false << "alltoall" << 4.0 << 8.0;
        // All four 1 s all-to-alls hidden, each beside compute: 4 x 16/132 s of slowdown exposed.
        QTest::newRow("hidden") << true << "alltoall" << 2.0 << 4.0 * 16 / 132;
        // a2a 3 ("long all-to-alls" above): 4 s exposed, and pre_dispatch (b) slowed beside the
        // 3 s combine (f).
        QTest::newRow("partly hidden") << true << "alltoall" << 6.0 << 4.0 + 3.0 * 16 / 132;
        // flex: DeepEP's 20 SMs.
        QTest::newRow("deepep sms") << true << "flex" << 2.0 << 4.0 * 20 / 132;
    }
    void overlapLeavesWhatComputeCannotCover()
    {
        QFETCH(bool, overlap);
        QFETCH(QString, dispatcher);
        QFETCH(double, passS);
        QFETCH(double, pairExposed);
        ParallelStrategy s;
        s.ep = 8;
        s.dp = 8;
        s.global_batch_size = 100 * 8; // 100 micro-batches, pp 1: 99 of 100 passes paired
        s.moe_ep_comm_overlap = overlap;
        s.moe_token_dispatcher = *parseMoeDispatcher(dispatcher.toStdString());
        const MoeLayerCompute compute { 2.0, 1.0, 4.0, 2.0 };
        const EpExposure exposed = exposedEpComm(s, h100s(1), passS, compute);
        const double expected = overlap ? 0.99 * 0.5 * pairExposed + 0.01 * passS : passS;
        QVERIFY2(std::abs(exposed.forward_s - expected) < 1e-9, qPrintable(QString::number(exposed.forward_s)));
        QCOMPARE(exposed.backward_s, exposed.forward_s);
    }

    // The passes that have a partner: Megatron's interleaved schedule runs (pp - rank - 1) x 2 +
    // (vpp - 1) x pp warm-up forwards on a rank, pp - 1 + (vpp - 1) x pp on average, and with the
    // overlap one more (schedules.py get_pp_rank_microbatches, d98e8a64); as many cool-down
    // backwards. pp 1: the first forward and the last backward.
    void pipelineLeavesWarmUpPassesAlone_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<double>("alone"); // chunk passes of each kind without a partner
        QTest::newRow("pp 1") << 1 << 1 << 100 << 1.0;
        // 3 + 4 + 1 of 8 x 2 chunk passes.
        QTest::newRow("pp 4 vpp 2") << 4 << 2 << 8 << 8.0;
        // The zoo's EP 32 rows: 7 + 24 + 1 of 128 x 4.
        QTest::newRow("pp 8 vpp 4") << 8 << 4 << 128 << 32.0;
    }
    void pipelineLeavesWarmUpPassesAlone()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, microbatches);
        QFETCH(double, alone);
        ParallelStrategy s;
        s.ep = 8;
        s.dp = 8;
        s.pp = pp;
        s.vpp = vpp;
        s.global_batch_size = microbatches * 8;
        s.moe_ep_comm_overlap = true;
        const double passS = 2.0;
        const double pairExposed = 4.0 * 16 / 132; // "hidden" above: all four all-to-alls covered
        const double chunkPasses = double(microbatches) * vpp;
        const double paired = 1 - alone / chunkPasses;
        const EpExposure exposed = exposedEpComm(s, h100s(1), passS, MoeLayerCompute { 2.0, 1.0, 4.0, 2.0 });
        const double expected = paired * 0.5 * pairExposed + (1 - paired) * passS;
        QVERIFY2(std::abs(exposed.forward_s - expected) < 1e-9,
            qPrintable(QString("%1 against %2").arg(exposed.forward_s).arg(expected)));
    }

    // The layer honours the strategy's flags: the zoo's two EP 32 rows differ only in the
    // overlap, and the dispatcher changes what crosses the NICs.
    void layerCostHonoursTheFlags_data()
    {
        QTest::addColumn<QString>("dispatcher");
        QTest::addColumn<bool>("overlap");
        QTest::newRow("flex") << "flex" << false;
        QTest::newRow("flex + overlap") << "flex" << true;
        QTest::newRow("alltoall + overlap") << "alltoall" << true;
    }
    void layerCostHonoursTheFlags()
    {
        QFETCH(QString, dispatcher);
        QFETCH(bool, overlap);
        const model::ModelDescription model = qwen3Like();
        const HardwareModel hw = h100s(32);
        const ParallelStrategy plain = zooStrategy();
        ParallelStrategy s = plain;
        s.moe_token_dispatcher = *parseMoeDispatcher(dispatcher.toStdString());
        s.moe_ep_comm_overlap = overlap;
        const LayerCost before = layerCost(model, plain, hw, true, false);
        const LayerCost after = layerCost(model, s, hw, true, false);
        QVERIFY(after.ep_comm_s < before.ep_comm_s);
        QCOMPARE(after.forward_compute_s, before.forward_compute_s);
        QCOMPARE(after.forward_comm_s - after.ep_comm_s, before.forward_comm_s - before.ep_comm_s);
    }

    // JSON: written only when not the default, read back, a wrong name is an error at its key.
    void strategyFieldsRoundTrip()
    {
        const model::ModelDescription model = qwen3Like();
        ParallelStrategy s = zooStrategy();
        const nlohmann::ordered_json plain = toJson(s);
        QVERIFY(!plain.contains("moe_token_dispatcher_type"));
        QVERIFY(!plain.contains("moe_ep_comm_overlap"));
        s.moe_token_dispatcher = MoeDispatcher::Flex;
        s.moe_ep_comm_overlap = true;
        const JsonDocument document = JsonDocument::parse(toJson(s).dump(), "plan.json");
        QCOMPARE(document.root()["moe_token_dispatcher_type"].string(), std::string("flex"));
        const ParallelStrategy back = readStrategy(document.root(), model, 256);
        QCOMPARE(back.moe_token_dispatcher, MoeDispatcher::Flex);
        QVERIFY(back.moe_ep_comm_overlap);
        QCOMPARE(back, s);
        const JsonDocument bad = JsonDocument::parse(
            R"({"tp": 2, "pp": 8, "vpp": 4, "ep": 32, "dp": 16, "global_batch_size": 2048, "moe_token_dispatcher_type": "deepep"})",
            "s.json");
        try {
            readStrategy(bad.root(), model, 256);
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/moe_token_dispatcher_type"));
        }
    }

    // Megatron-Core's rules for --overlap-moe-expert-parallel-comm (transformer_config.py).
    void overlapFollowsMegatronsRules_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("zoo row") << "" << true;
        QTest::newRow("allgather") << "allgather" << false;
        QTest::newRow("full recompute") << "full" << false;
        QTest::newRow("moe recompute module") << "moe" << false;
        QTest::newRow("pp without vpp") << "novpp" << false;
        QTest::newRow("no ep") << "noep" << false;
    }
    void overlapFollowsMegatronsRules()
    {
        QFETCH(QString, change);
        QFETCH(bool, accepted);
        const model::ModelDescription model = qwen3Like();
        ParallelStrategy s = zooStrategy();
        s.moe_ep_comm_overlap = true;
        if (change == "allgather")
            s.moe_token_dispatcher = MoeDispatcher::AllGather;
        if (change == "full")
            s.recompute = Recompute::Full;
        if (change == "moe") {
            s.recompute = Recompute::Selective;
            s.recompute_modules = RecomputeModules::of({ RecomputeModule::Moe });
        }
        if (change == "novpp") {
            s.vpp = 1;
            s.schedule = PipelineSchedule::OneFOneB;
        }
        if (change == "noep")
            s.ep = 1;
        const std::vector<std::string> problems = strategyProblems(s, model, 256);
        const bool named = std::ranges::any_of(
            problems, [](const std::string& p) { return p.find("moe_ep_comm_overlap") != std::string::npos; });
        QCOMPARE(!named, accepted);
    }

    // The export writes the flags the plan was costed with (Megatron-LM argument names).
    void exportWritesTheFlags()
    {
        exporting::MegatronRun run;
        run.expert_parallel = 32;
        run.moe_token_dispatcher = "flex";
        run.moe_ep_comm_overlap = true;
        exporting::MegatronArgumentList args;
        exporting::addMegatronRunArguments(args, run, true);
        const auto has = [&](const std::string& flag, const std::string& value) {
            return std::ranges::find(args, std::pair<std::string, std::string>(flag, value)) != args.end();
        };
        QVERIFY(has("--moe-token-dispatcher-type", "flex"));
        QVERIFY(has("--overlap-moe-expert-parallel-comm", ""));
    }
};

QTEST_GUILESS_MAIN(TestMoeDispatch)
#include "tst_moe_dispatch.moc"
