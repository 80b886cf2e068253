// SPDX-License-Identifier: GPL-3.0-or-later
// CPU activation offload (strategy key cpu_offload_layers; docs/memory-model.md, "CPU activation
// offload"): Megatron-Core's --cpu-offloading-num-layers N on Transformer Engine's cpu_offload.py.
// The first N decoder layers' saved activations live on the host, so the GPU holds the other
// L - N layers'; the copies, one after another on a side stream, stall compute only when all N
// take longer than the other L - 2 layers' compute.
#include <QtTest>

#include "core/export/galvatron_plan_from_strategy.h"
#include "core/export/megatron_bridge_recipe.h"
#include "core/export/megatron_plan_args.h"
#include "core/megatron/chunk_costs.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_file.h"
#include "core/megatron/strategy_json.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using stratex::test::h100s;

namespace {

// llama3-8b on one H100 node: TP 8 with SP, PP 1, DP 1, no recompute, micro-batch 1.
ParallelStrategy base(int offloaded)
{
    ParallelStrategy s;
    s.tp = 8;
    s.sequence_parallel = true;
    s.global_batch_size = 4;
    s.cpu_offload_layers = offloaded;
    return s;
}

std::vector<ChunkCost> chunks(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw)
{
    return chunkCosts(model, s, hw, stageLayerCounts(s, model.num_layers), TimeScales {});
}

// The Megatron-Bridge performance recipe that offloads most (LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V2,
// scripts/performance/configs/llama/llama3_workload_base_configs.py @ v0.5.0): Llama 3 70B on 64
// GB200, Megatron-FSDP, TP 1, PP 1, micro-batch 2, FP8, 40 of 80 layers offloaded.
std::string gb200PlanText(int offloaded)
{
    return R"({"format":"stratex-plan","version":1,"model":{"preset":"llama3-70b"},
        "cluster":{"gpu":{"preset":"gb200-186gb"},"num_nodes":16,"gpus_per_node":4},
        "strategy":{"framework":"megatron-bridge","tp":1,"pp":1,"cp":1,"dp":64,"zero":3,"micro_batch_size":2,"global_batch_size":256,
        "precision":"fp8","fp8_recipe":"tensorwise","main_grads_dtype":"bf16","recompute":"none",
        "cpu_offload_layers":)"
        + std::to_string(offloaded) + "}}";
}

} // namespace

class TestCpuOffload : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The chunk's held activations lose the offloaded layers' (uniform dense layers: N / L of
    // them), which the chunk keeps as host bytes; the running layer's transient stays.
    void heldActivationsLoseTheOffloadedLayers_data()
    {
        QTest::addColumn<int>("offloaded");
        QTest::newRow("none") << 0;
        QTest::newRow("1 of 32") << 1;
        QTest::newRow("16 of 32") << 16;
        QTest::newRow("31 of 32") << 31;
    }
    void heldActivationsLoseTheOffloadedLayers()
    {
        QFETCH(int, offloaded);
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        const hardware::HardwareModel hw = h100s(1);
        const ParallelStrategy s = base(offloaded);
        QVERIFY(strategyProblems(s, model, 8).empty());
        const ChunkCost none = chunks(model, base(0), hw).front();
        const ChunkCost with = chunks(model, s, hw).front();
        const double perLayer = none.activation_bytes / model.num_layers;
        QVERIFY(perLayer > 0);
        QCOMPARE(with.offloaded_layers, offloaded);
        QVERIFY(qAbs(with.activation_bytes - (model.num_layers - offloaded) * perLayer) < 1e-6 * none.activation_bytes);
        QVERIFY(qAbs(with.offloaded_bytes - offloaded * perLayer) < 1e-6 * none.activation_bytes);
        QCOMPARE(with.transient_bytes, none.transient_bytes);
    }

    // offloadExposure: N copies of c seconds against the other L - 2 layers' compute, each way.
    void copiesStallBeyondTheirWindow_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("offloaded");
        QTest::addColumn<double>("gbPerLayer");
        QTest::addColumn<double>("forwardMs"); // per layer
        QTest::addColumn<double>("backwardMs");
        QTest::addColumn<double>("linkGbPerS");
        QTest::addColumn<double>("stallForwardMs");
        QTest::addColumn<double>("stallBackwardMs");
        // 40 copies of 10 ms hide under 78 x 15 ms forward and 78 x 30 ms backward.
        QTest::newRow("hidden") << 80 << 40 << 2.25 << 15.0 << 30.0 << 225.0 << 0.0 << 0.0;
        // Over PCIe Gen5 (64 GB/s): 40 x 35.2 ms = 1406 ms against 1170 ms forward, 2340 backward.
        QTest::newRow("PCIe: forward stalls") << 80 << 40 << 2.25 << 15.0 << 30.0 << 64.0 << 1406.25 - 1170 << 0.0;
        // Nearly every layer: the window is the same L - 2 layers.
        QTest::newRow("79 of 80") << 80 << 79 << 2.25 << 15.0 << 30.0 << 64.0 << 79 * 35.15625 - 1170
                                  << 79 * 35.15625 - 2340;
        QTest::newRow("none") << 80 << 0 << 2.25 << 15.0 << 30.0 << 64.0 << 0.0 << 0.0;
    }
    void copiesStallBeyondTheirWindow()
    {
        QFETCH(int, layers);
        QFETCH(int, offloaded);
        QFETCH(double, gbPerLayer);
        QFETCH(double, forwardMs);
        QFETCH(double, backwardMs);
        QFETCH(double, linkGbPerS);
        QFETCH(double, stallForwardMs);
        QFETCH(double, stallBackwardMs);
        const OffloadExposure e
            = offloadExposure(layers, offloaded, gbPerLayer * 1e9, forwardMs * 1e-3, backwardMs * 1e-3, linkGbPerS);
        QVERIFY2(qAbs(e.forward_s * 1e3 - stallForwardMs) < 1e-6, qPrintable(QString::number(e.forward_s * 1e3)));
        QVERIFY2(qAbs(e.backward_s * 1e3 - stallBackwardMs) < 1e-6, qPrintable(QString::number(e.backward_s * 1e3)));
    }

    // Megatron-Core's rules (transformer_config.py __post_init__ @ d98e8a64) and the frameworks
    // without the offload.
    void megatronRules_data()
    {
        QTest::addColumn<int>("offloaded");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("recompute");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("problem"); // empty: accepted
        QTest::newRow("31 of 32") << 31 << 1 << "none" << "megatron-core" << "";
        QTest::newRow("bridge") << 8 << 1 << "none" << "megatron-bridge" << "";
        QTest::newRow("all 32") << 32 << 1 << "none" << "megatron-core" << "must lie in [1, num_layers - 1 = 31]";
        QTest::newRow("pp 2") << 8 << 2 << "none" << "megatron-core" << "needs pp 1";
        QTest::newRow("selective recompute") << 8 << 1 << "selective" << "megatron-core" << "needs recompute none";
        QTest::newRow("torchtitan") << 8 << 1 << "none" << "torchtitan" << "torchtitan has no such offload";
    }
    void megatronRules()
    {
        QFETCH(int, offloaded);
        QFETCH(int, pp);
        QFETCH(QString, recompute);
        QFETCH(QString, framework);
        QFETCH(QString, problem);
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        ParallelStrategy s = base(offloaded);
        s.pp = pp;
        s.global_batch_size = 4 * pp;
        s.recompute = *parseRecompute(recompute.toStdString());
        s.framework = *parseFramework(framework.toStdString());
        if (s.framework == Framework::Torchtitan)
            s.sequence_parallel = true;
        const std::vector<std::string> problems = strategyProblems(s, model, 8 * pp);
        QString all;
        for (const std::string& p : problems)
            all += QString::fromStdString(p) + "; ";
        if (problem.isEmpty())
            QVERIFY2(problems.empty(), qPrintable(all));
        else
            QVERIFY2(all.contains(problem), qPrintable(all));
    }

    // The key in strategy JSON: written only when on, read back; a negative count names the key.
    void jsonKey_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("8") << "8" << true;
        QTest::newRow("0") << "0" << true;
        QTest::newRow("-1") << "-1" << false;
        QTest::newRow("string") << "\"8\"" << false;
    }
    void jsonKey()
    {
        QFETCH(QString, value);
        QFETCH(bool, accepted);
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        const QString json = R"({"tp":8,"pp":1,"dp":1,"global_batch_size":4,"cpu_offload_layers":)" + value + "}";
        try {
            const JsonDocument doc = JsonDocument::parse(json.toStdString(), "plan.json");
            const ParallelStrategy s = readStrategy(doc.root(), model, 8);
            QVERIFY2(accepted, "accepted a cpu_offload_layers it should refuse");
            const JsonDocument again = JsonDocument::parse(toJson(s).dump(), "again.json");
            QCOMPARE(readStrategy(again.root(), model, 8).cpu_offload_layers, s.cpu_offload_layers);
            QCOMPARE(again.root().find("cpu_offload_layers").has_value(), s.cpu_offload_layers > 0);
        } catch (const std::exception& e) {
            QVERIFY2(!accepted, e.what());
            QVERIFY2(QString(e.what()).contains("cpu_offload_layers"), e.what());
        }
    }

    // NVIDIA's GB200 recipe trained (Megatron-Bridge performance archive, 26.04.01, 4224 tokens/s/GPU):
    // without the offload its 80 layers' activations would not fit in 186 GB; with 40 offloaded
    // the plan fits, and over GB200's NVLink-C2C the copies hide under the compute.
    void gb200RecipeFitsWithItsOffload()
    {
        const PlanFile without = PlanFile::parse(gb200PlanText(0), "without.json");
        const PlanFile with = PlanFile::parse(gb200PlanText(40), "with.json");
        const hardware::HardwareModel hw(with.cluster, hardware::efficiencyFor(with.cluster.gpu));
        const Estimate a = estimate(without.model, without.strategy, hw);
        const Estimate b = estimate(with.model, with.strategy, hw);
        QVERIFY(a.problems.empty());
        QVERIFY2(b.problems.empty(), b.problems.empty() ? "" : b.problems.front().c_str());
        QVERIFY(!a.fits);
        QVERIFY2(b.fits, qPrintable(QString("%1 of %2 MB").arg(b.device_peak_mb).arg(b.memory_limit_mb)));
        QCOMPARE(b.iteration_ms, a.iteration_ms);
        bool noted = false;
        for (const std::string& note : b.notes)
            noted = noted || note.starts_with("CPU activation offload: 40 of 80 layers");
        QVERIFY(noted);
    }

    // The exports write what the plan was costed with: Megatron-LM's flags, Bridge's fields as its
    // performance recipes set them; Galvatron's runtime has no offload and refuses the plan.
    void exportsWriteTheOffload()
    {
        const PlanFile plan = PlanFile::parse(gb200PlanText(40), "with.json");
        const exporting::MegatronPlanArgs args = exporting::megatronPlanArgs(plan, nullptr);
        bool flag = false;
        bool layers = false;
        for (const auto& [name, value] : args.arguments) {
            flag = flag || name == "--cpu-offloading";
            layers = layers || (name == "--cpu-offloading-num-layers" && value == "40");
        }
        QVERIFY(flag);
        QVERIFY(layers);
        const std::string recipe = exporting::megatronBridgeRecipeText(exporting::megatronBridgePlanRecipe(plan));
        QVERIFY2(recipe.find("cpu_offloading = True") != std::string::npos, recipe.c_str());
        QVERIFY(recipe.find("cpu_offloading_num_layers = 40") != std::string::npos);
        QVERIFY(recipe.find("cpu_offloading_weights = False") != std::string::npos);
        try {
            exporting::galvatronPlanFromStrategy(plan, "Galvatron");
            QFAIL("Galvatron export accepted an offloading plan");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains("CPU activation offload"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuOffload)
#include "tst_cpu_offload.moc"
