// SPDX-License-Identifier: GPL-3.0-or-later
// What each framework keeps of the model state (docs/memory-model.md): bytes per parameter from
// each framework's source, what a step frees and allocates again, and the framework and state
// dtypes as settings that reach the plan file.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <QtTest>
#include "core/hardware/device_memory.h"
#include "core/megatron/estimate.h"
#include "core/megatron/model_state_memory.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/megatron/torchtitan_activations.h"
#include "core/model/model_presets.h"
#include "core/sim/simulator.h"
#include "support/h100_cluster.h"
#include "memory_test_util.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;
using stratex::test::h100s;

class TestFrameworkMemory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // What a step allocates and frees of the model state, the caching allocator's churn
    // (model_state_memory.h freed_each_step_mb): torchtitan's FSDP2 under PP frees the stage's
    // unsharded weights (2 bytes, 1 for float8 linears) and fp32 accumulated gradients (4) in the
    // last backward's post_backward and allocates them again the next step; nothing without PP
    // here (reshard after forward churns through gathered_mb) or under Megatron-Core's buffers.
    // Bytes per parameter, 1e9 parameters over d = 8.
    void stepChurnOfModelState_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<double>("bytesPerParam");
        QTest::newRow("torchtitan pp bf16") << "torchtitan" << 4 << "bf16" << 6.0;
        QTest::newRow("torchtitan pp float8 linears") << "torchtitan" << 4 << "fp8" << 5.0;
        QTest::newRow("torchtitan without pp") << "torchtitan" << 1 << "bf16" << 0.0;
        QTest::newRow("megatron-core pp") << "megatron-core" << 4 << "bf16" << 0.0;
    }
    void stepChurnOfModelState()
    {
        QFETCH(QString, framework);
        QFETCH(int, pp);
        QFETCH(QString, precision);
        QFETCH(double, bytesPerParam);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.pp = pp;
        s.zero = 2;
        s.dp = 8; // d = 8: FSDP's float8 all-gather needs a shard degree above 1 (torchtitanFloat8AllGather)
        s.precision = precision == "fp8" ? Precision::Fp8 : Precision::Bf16;
        const double params = 1e9;
        const ModelStateMemory m = modelStateMemory(s, params, params / 8, 4, params);
        QCOMPARE(m.freed_each_step_mb, bytesPerParam * params / 1e6);
    }

    // Bytes per parameter each framework keeps, from its source (docs/memory-model.md), for a
    // stage of 1e9 parameters sharded over d = 8 data-parallel ranks and 4 layers.
    void frameworkModelState_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("gradsDtype");
        QTest::addColumn<QString>("optimizerDtype");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("gradients");
        QTest::addColumn<double>("optimizer");
        const QString f32 = "fp32";
        // Megatron-Core: bf16 weights, the full fp32 grad buffer, 12 bytes sharded at ZeRO 1.
        QTest::newRow("megatron-core ddp") << "megatron-core" << 0 << 1 << f32 << f32 << 2.0 << 4.0 << 12.0;
        QTest::newRow("megatron-core distributed optimizer")
            << "megatron-core" << 1 << 1 << f32 << f32 << 2.0 << 4.0 << 1.5;
        QTest::newRow("nemo is megatron-core") << "nemo" << 1 << 2 << f32 << f32 << 2.0 << 4.0 << 1.5;
        // ZeRO 2 is Megatron-FSDP's optim_grads: reduce-scattered in every backward, so only the
        // fp32 shard stays (gradientReduction(), dp_traffic.h).
        QTest::newRow("megatron-fsdp optim_grads") << "megatron-core" << 2 << 4 << f32 << f32 << 2.0 << 0.5 << 1.5;
        // --grad-reduce-in-bf16: the grad buffer in the parameters' dtype (2 bytes); the
        // precision-aware optimizer with bf16 moments: 16-bit master remainders + 2 + 2 over d.
        QTest::newRow("megatron-core bf16 main grads")
            << "megatron-core" << 1 << 1 << "bf16" << f32 << 2.0 << 2.0 << 1.5;
        QTest::newRow("megatron-core bf16 optimizer states")
            << "megatron-core" << 1 << 1 << f32 << "bf16" << 2.0 << 4.0 << 6.0 / 8;
        QTest::newRow("nemo bf16 grads and states (Nemotron-4 340B)")
            << "nemo" << 1 << 8 << "bf16" << "bf16" << 2.0 << 2.0 << 6.0 / 8;
        // torchtitan FSDP2: fp32 shards 4 + 4 + 8 over d; with PP the stage's bf16 copies (2) and
        // fp32 unsharded gradients (4) stay across micro-batches; reshard after forward without PP
        // keeps two of the four layers gathered (2 x 1/2).
        QTest::newRow("torchtitan fsdp pp") << "torchtitan" << 2 << 4 << f32 << f32 << 0.5 + 2.0 << 0.5 + 4.0 << 1.0;
        QTest::newRow("torchtitan fsdp reshard") << "torchtitan" << 3 << 1 << f32 << f32 << 0.5 + 1.0 << 0.5 << 1.0;
        QTest::newRow("torchtitan fsdp no reshard") << "torchtitan" << 2 << 1 << f32 << f32 << 0.5 + 2.0 << 0.5 << 1.0;
        QTest::newRow("torchtitan no fsdp") << "torchtitan" << 0 << 1 << f32 << f32 << 4.0 << 4.0 << 8.0;
        QTest::newRow("torchtitan no fsdp pp") << "torchtitan" << 0 << 4 << f32 << f32 << 4.0 << 4.0 << 8.0;
        // FSDP2 reshard-after-forward under PP: still the no-sync micro-batches' unsharded fp32 gradients.
        QTest::newRow("torchtitan fsdp reshard pp") << "torchtitan" << 3 << 4 << f32 << f32 << 0.5 + 2.0 << 0.5 + 4.0 << 1.0;
        // DeepSpeed: 2 + 2 + 12 sharded by stage, and its 1 GB reduce bucket (5e8 16-bit elements;
        // deepspeed_memory.h). ZeRO 1 reduces only at the accumulation boundary: the full 16-bit
        // gradients stay, with the boundary's contiguous partition copy.
        QTest::newRow("deepspeed zero 2") << "deepspeed" << 2 << 1 << f32 << f32 << 2.0 << 0.25 + 1.0 << 1.5;
        QTest::newRow("deepspeed zero 1") << "deepspeed" << 1 << 1 << f32 << f32 << 2.0 << 2.0 + 0.25 + 1.0 << 1.5;
    }
    void frameworkModelState()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(int, pp);
        QFETCH(QString, gradsDtype);
        QFETCH(QString, optimizerDtype);
        QFETCH(double, weights);
        QFETCH(double, gradients);
        QFETCH(double, optimizer);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.zero = zero;
        s.pp = pp;
        s.main_grads_dtype = *parseStateDtype(gradsDtype.toStdString());
        s.optimizer_state_dtype = *parseStateDtype(optimizerDtype.toStdString());
        const double params = 1e9;
        const double shard = zero >= 1 ? params / 8 : params;
        // Every parameter in the four blocks' linears (no root group: torchtitanFsdpGroups has one).
        const ModelStateMemory m = modelStateMemory(s, params, shard, 4, params);
        QCOMPARE(m.weights_mb / 1e3, weights);
        QCOMPARE(m.gradients_mb / 1e3, gradients);
        QCOMPARE(m.optimizer_mb / 1e3, optimizer);
    }

    // The framework is a row of the search's settings table (CLI flag, GUI form, saved settings).
    void frameworkIsASetting()
    {
        StrategySearchSettings settings;
        QCOMPARE(settings.resolvedSpace().framework, Framework::MegatronCore);
        settings.framework = "torchtitan";
        QCOMPARE(settings.resolvedSpace().framework, Framework::Torchtitan);
        QCOMPARE(parseFramework("nemo"), std::optional<Framework>(Framework::MegatronBridge));
        QVERIFY(!parseFramework("jax").has_value());
        for (const Framework f :
            { Framework::MegatronCore, Framework::MegatronBridge, Framework::Torchtitan, Framework::DeepSpeed,
                Framework::Composer })
            QCOMPARE(parseFramework(frameworkName(f)), std::optional<Framework>(f));
    }

    // The gradient and optimizer-state dtypes are rows of the same table, reach the plan file
    // (strategy JSON) and back, and Megatron's own rule refuses bf16 states without the
    // distributed optimizer.
    void stateDtypesAreSettings()
    {
        StrategySearchSettings settings;
        QCOMPARE(settings.resolvedSpace().main_grads_dtype, StateDtype::Fp32);
        QCOMPARE(settings.resolvedSpace().optimizer_state_dtype, StateDtype::Fp32);
        settings.main_grads_dtype = "bf16";
        settings.optimizer_state_dtype = "bf16";
        QCOMPARE(settings.resolvedSpace().main_grads_dtype, StateDtype::Bf16);
        QCOMPARE(settings.resolvedSpace().optimizer_state_dtype, StateDtype::Bf16);
        QVERIFY(!parseStateDtype("fp16").has_value());

        const model::ModelDescription model = model::modelPreset("llama2-7b");
        ParallelStrategy s;
        s.dp = 8;
        s.global_batch_size = 8;
        s.main_grads_dtype = StateDtype::Bf16;
        s.optimizer_state_dtype = StateDtype::Bf16;
        const JsonDocument plan = JsonDocument::parse(toJson(s).dump(), "plan.json");
        QCOMPARE(plan.root()["main_grads_dtype"].string(), std::string("bf16"));
        const ParallelStrategy back = readStrategy(plan.root(), model, 8);
        QCOMPARE(back.main_grads_dtype, StateDtype::Bf16);
        QCOMPARE(back.optimizer_state_dtype, StateDtype::Bf16);
        // DDP with the precision-aware optimizer: Megatron refuses it (optimizer/__init__.py).
        QVERIFY(!strategyProblems(s, model, 8).empty());
        s.zero = 1;
        QVERIFY(strategyProblems(s, model, 8).empty());
        // Less memory than fp32 states on the same plan.
        const HardwareModel hw = h100s(1);
        const Estimate bf16 = estimate(model, s, hw);
        s.main_grads_dtype = StateDtype::Fp32;
        s.optimizer_state_dtype = StateDtype::Fp32;
        QVERIFY(bf16.allocated_peak_mb < estimate(model, s, hw).allocated_peak_mb);
    }
};

QTEST_GUILESS_MAIN(TestFrameworkMemory)
#include "tst_framework_memory.moc"
