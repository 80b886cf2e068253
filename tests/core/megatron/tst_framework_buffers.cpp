// SPDX-License-Identifier: GPL-3.0-or-later
// What each framework keeps beyond the weights, gradients and optimizer states (issue 23): DeepSpeed
// ZeRO's reduce buckets and gradient partitions (deepspeed_memory.h), Transformer Engine's cached
// placeholder weight gradients under Megatron-Core (te_dummy_wgrad.h), and the measured records
// that check them (docs/memory-model.md).
#include <cmath>
#include <filesystem>

#include <QtTest>

#include "core/megatron/deepspeed_memory.h"
#include "core/megatron/framework.h"
#include "core/megatron/te_dummy_wgrad.h"
#include "core/model/model_presets.h"
#include "core/runs/reference_run.h"
#include "core/hardware/hardware_model.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

// Llama 3.2 1B as the Megatron-Bridge record trained it (h 2048, 32 heads of 64, 8 KV heads,
// gated MLP 8192, vocabulary 128256, tied).
model::ModelDescription llama32_1b()
{
    model::ModelDescription m;
    m.name = "llama3.2-1b";
    m.num_layers = 16;
    m.hidden_size = 2048;
    m.ffn_hidden_size = 8192;
    m.num_heads = 32;
    m.num_kv_heads = 8;
    m.vocab_size = 128256;
    m.seq_length = 1024;
    m.tied_embeddings = true;
    return m;
}

} // namespace

class TstFrameworkBuffers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // deepspeedai/DeepSpeed @ edaa7221 for 1e9 parameters on a rank, 1.25e8 its share (d = 8), 4
    // layers; GB = 1e9 bytes. The reduce bucket is 5e8 16-bit elements = 1 GB, whatever the model.
    void deepSpeedStages_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("overlap"); // -1: DeepSpeed's default, 0 off, 1 on
        QTest::addColumn<bool>("contiguous");
        QTest::addColumn<double>("bucketElements");
        QTest::addColumn<double>("maxLive");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("gradients");
        QTest::addColumn<double>("optimizer");
        // No ZeRO: the ZeRO paper's 2 + 2 + 12, whole.
        QTest::newRow("stage 0") << 0 << -1 << true << 5e8 << 1e9 << 2.0 << 2.0 << 12.0;
        // Every 16-bit param.grad (2), the boundary's contiguous partition (0.25), one bucket (1).
        QTest::newRow("stage 1") << 1 << -1 << true << 5e8 << 1e9 << 2.0 << 3.25 << 1.5;
        // The reduced partition (0.25) and one bucket; overlap_comm adds the second buffer.
        QTest::newRow("stage 2") << 2 << -1 << true << 5e8 << 1e9 << 2.0 << 1.25 << 1.5;
        QTest::newRow("stage 2 overlap_comm") << 2 << 1 << true << 5e8 << 1e9 << 2.0 << 2.25 << 1.5;
        QTest::newRow("stage 2 no contiguous buffer") << 2 << -1 << false << 5e8 << 1e9 << 2.0 << 0.25 << 1.5;
        QTest::newRow("stage 2 reduce_bucket_size 2e8") << 2 << -1 << true << 2e8 << 1e9 << 2.0 << 0.65 << 1.5;
        // Stage 3: the weight shard (0.25) and two of the four layers gathered (1.0); one bucket
        // per dtype even with overlap_comm (its default there); gradient partition in the model's dtype.
        QTest::newRow("stage 3") << 3 << -1 << true << 5e8 << 1e9 << 1.25 << 1.25 << 1.5;
        QTest::newRow("stage 3 max_live_parameters 1e8") << 3 << -1 << true << 5e8 << 1e8 << 0.45 << 1.25 << 1.5;
    }
    void deepSpeedStages()
    {
        QFETCH(int, zero);
        QFETCH(int, overlap);
        QFETCH(bool, contiguous);
        QFETCH(double, bucketElements);
        QFETCH(double, maxLive);
        QFETCH(double, weights);
        QFETCH(double, gradients);
        QFETCH(double, optimizer);
        ParallelStrategy s;
        s.framework = Framework::DeepSpeed;
        s.zero = zero;
        DeepSpeedZeroConfig config;
        if (overlap >= 0)
            config.overlap_comm = overlap == 1;
        config.contiguous_gradients = contiguous;
        config.reduce_bucket_elements = bucketElements;
        config.max_live_parameters = maxLive;
        const double params = 1e9;
        const ModelStateMemory m = deepSpeedModelState(s, params, zero >= 1 ? params / 8 : params, 4, config);
        QCOMPARE(m.weights_mb / 1e3, weights);
        QCOMPARE(m.gradients_mb / 1e3, gradients);
        QCOMPARE(m.optimizer_mb / 1e3, optimizer);
    }

    // The records of llm-foundry are MosaicML Composer's FSDP, not DeepSpeed: they keep the ZeRO
    // paper's 2 + 2 + 12 over the group, without DeepSpeed's reduce buckets.
    void composerKeepsTheZeroPaperAccounting_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<double>("gradients");
        QTest::newRow("full shard") << 3 << 0.25;
        QTest::newRow("shard grad op") << 2 << 0.25;
    }
    void composerKeepsTheZeroPaperAccounting()
    {
        QFETCH(int, zero);
        QFETCH(double, gradients);
        ParallelStrategy s;
        s.framework = Framework::Composer;
        s.zero = zero;
        const ModelStateMemory m = modelStateMemory(s, 1e9, 1.25e8, 4);
        QCOMPARE(m.gradients_mb / 1e3, gradients);
        QCOMPARE(m.optimizer_mb / 1e3, 1.5);
        QCOMPARE(*parseFramework("composer"), Framework::Composer);
        QCOMPARE(std::string(frameworkName(Framework::Composer)), std::string("composer"));
    }

    // TE's placeholders for Llama 3.2 1B, element counts by hand: linear_qkv 3072 x 2048, linear_proj
    // 2048 x 2048, linear_fc1 16384 x 2048, linear_fc2 2048 x 8192, output 128256 x 2048; 2 bytes each.
    void teDummyWgrad_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("fusion");
        QTest::addColumn<bool>("last");
        QTest::addColumn<double>("bytes");
        const double layer = 3072.0 * 2048 + 2048.0 * 2048 + 16384.0 * 2048 + 2048.0 * 8192;
        const double output = 128256.0 * 2048;
        QTest::newRow("megatron-bridge last stage") << "megatron-bridge" << 1 << 1 << true << true << 2 * (layer + output);
        QTest::newRow("megatron-core tp 2") << "megatron-core" << 2 << 1 << true << true << (layer + output);
        QTest::newRow("megatron-core not last stage") << "megatron-core" << 1 << 0 << true << false << 2 * layer;
        // --no-gradient-accumulation-fusion: the output layer's real 16-bit wgrad at the peak.
        QTest::newRow("no fusion, last stage") << "megatron-core" << 1 << 1 << false << true << 2 * output;
        QTest::newRow("no fusion, first stage") << "megatron-core" << 1 << 1 << false << false << 0.0;
        QTest::newRow("megatron-fsdp") << "megatron-core" << 1 << 2 << true << true << 0.0;
        QTest::newRow("torchtitan") << "torchtitan" << 1 << 3 << true << true << 0.0;
        QTest::newRow("deepspeed") << "deepspeed" << 1 << 1 << true << true << 0.0;
    }
    void teDummyWgrad()
    {
        QFETCH(QString, framework);
        QFETCH(int, tp);
        QFETCH(int, zero);
        QFETCH(bool, fusion);
        QFETCH(bool, last);
        QFETCH(double, bytes);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.tp = tp;
        s.zero = zero;
        s.gradient_accumulation_fusion = fusion;
        QCOMPARE(teDummyWgradBytes(llama32_1b(), s, 16, last), bytes);
    }

    // One placeholder per distinct (shape, dtype): a plain MLP as wide as the attention
    // (f = h = 1024, 16 heads without GQA) shares linear_proj's 1024 x 1024 with fc1 and fc2.
    void teDummyWgradOnePerShape()
    {
        model::ModelDescription m = llama32_1b();
        m.hidden_size = 1024;
        m.num_heads = 16;
        m.num_kv_heads = 16;
        m.ffn_hidden_size = 1024;
        m.mlp = model::MlpKind::Plain;
        ParallelStrategy s;
        QCOMPARE(teDummyWgradBytes(m, s, 4, false), 2 * (3072.0 * 1024 + 1024.0 * 1024));
    }

    // Measured peaks (resources/reference-runs) the two mechanisms are checked on: the allocated
    // peak within `bound` of max_memory_allocated, each run's configuration as recorded.
    void measuredAllocatedPeaks_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("bound");
        // Megatron-Bridge, Llama 3.2 1B on 8 H100: -10.0 % before the TE placeholders (617 MiB).
        QTest::newRow("mbridge-byoc-llama3.2-1b-8") << "mbridge-byoc-llama3.2-1b-8" << 0.06;
        QTest::newRow("msswift-megatron-qwen2-0.5b-2") << "msswift-megatron-qwen2-0.5b-2" << 0.04;
        QTest::newRow("megatronlm-zhnote-gpt2-345m-4-a800") << "megatronlm-zhnote-gpt2-345m-4-a800" << 0.03;
        QTest::newRow("megatronlm-ci-gpt3-7b-tp1-pp4-vp8-8-h100")
            << "megatronlm-ci-gpt3-7b-tp1-pp4-vp8-8-h100" << 0.02;
    }
    void measuredAllocatedPeaks()
    {
        QFETCH(QString, id);
        QFETCH(double, bound);
        const runs::ReferenceRun run = runs::readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QCOMPARE(run.peak_memory_kind, runs::PeakMemoryKind::Allocated);
        const runs::ReferenceComparison c = runs::compareWithRun(run, hardware::efficiencyFor(run.cluster));
        QVERIFY(c.memory_error.has_value());
        QVERIFY2(std::abs(*c.memory_error) <= bound,
            qPrintable(QString("%1: memory error %2").arg(id).arg(*c.memory_error)));
    }
};

QTEST_APPLESS_MAIN(TstFrameworkBuffers)
#include "tst_framework_buffers.moc"
