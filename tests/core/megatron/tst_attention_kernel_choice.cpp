// SPDX-License-Identifier: GPL-3.0-or-later
// The attention kernel as a plan and run input (docs/kernels.md §6): the framework's default on a
// GPU, the strategy JSON key, and that the kernel moves a run's predicted time.
#include <filesystem>

#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/hardware/attention_kernel_rates.h"
#include "core/megatron/attention_kernel_choice.h"
#include "core/megatron/estimate.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search.h"
#include "core/common/progress.h"
#include "core/hardware/hardware_model.h"
#include "core/model/model_presets.h"
#include "core/runs/reference_run.h"

using namespace stratex;
using namespace stratex::megatron;
using hardware::AttentionKernel;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

hardware::HardwareModel cluster(const char* gpu, int nodes)
{
    hardware::ClusterDescription c;
    c.gpu = hardware::gpuPreset(gpu);
    c.num_nodes = nodes;
    c.gpus_per_node = 8;
    return hardware::HardwareModel(c, hardware::efficiencyFor(c.gpu));
}

} // namespace

class TestAttentionKernelChoice : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Transformer Engine prefers cuDNN fused attention on sm90 (and runs it on Blackwell),
    // flash-attn 2 on Ampere; torchtitan's SDPA runs flash first except on sm100.
    void frameworkDefaults_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("kernel");
        QTest::newRow("megatron h100") << "megatron-core"
                                       << "h100-80gb"
                                       << "cudnn";
        QTest::newRow("megatron h800") << "megatron-core"
                                       << "h800-80gb"
                                       << "cudnn";
        QTest::newRow("megatron a100") << "megatron-core"
                                       << "a100-80gb"
                                       << "flash2";
        QTest::newRow("megatron b200") << "megatron-core"
                                       << "b200-192gb"
                                       << "cudnn";
        QTest::newRow("nemo h100") << "megatron-bridge"
                                   << "h100-80gb"
                                   << "cudnn";
        QTest::newRow("torchtitan h100") << "torchtitan"
                                         << "h100-96gb"
                                         << "flash2";
        QTest::newRow("torchtitan b200") << "torchtitan"
                                         << "b200-192gb"
                                         << "cudnn";
        QTest::newRow("deepspeed h100") << "deepspeed"
                                        << "h100-80gb"
                                        << "flash2";
        QTest::newRow("composer a100") << "composer"
                                       << "a100-40gb"
                                       << "flash2";
    }
    void frameworkDefaults()
    {
        QFETCH(QString, framework);
        QFETCH(QString, gpu);
        QFETCH(QString, kernel);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        QCOMPARE(QString::fromStdString(
                     std::string(hardware::attentionKernelName(resolvedAttentionKernel(s, gpu.toStdString())))),
            kernel);
        // The plan's own kernel wins; flash attention off is unfused whatever it names.
        s.attention_kernel = AttentionKernel::Flash3;
        QCOMPARE(resolvedAttentionKernel(s, gpu.toStdString()), AttentionKernel::Flash3);
        s.flash_attention = false;
        QCOMPARE(resolvedAttentionKernel(s, gpu.toStdString()), AttentionKernel::Unfused);
    }

    // The kernel moves the predicted time by its rate, on the GPUs with a measurement.
    void kernelChangesThePredictedTime_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("order"); // -1 faster than flash2, 0 equal, +1 slower
        QTest::newRow("cudnn h100") << "h100-80gb"
                                    << "cudnn" << -1;
        QTest::newRow("flash3 h100") << "h100-80gb"
                                     << "flash3" << -1;
        QTest::newRow("cudnn a100: no measurement") << "a100-80gb"
                                                    << "cudnn" << 0;
        QTest::newRow("mpt-triton h100") << "h100-80gb"
                                         << "mpt-triton" << 1;
        QTest::newRow("unfused h100") << "h100-80gb"
                                      << "unfused" << 1;
    }
    void kernelChangesThePredictedTime()
    {
        QFETCH(QString, gpu);
        QFETCH(QString, kernel);
        QFETCH(int, order);
        const model::ModelDescription model = model::modelPreset("llama3.1-8b");
        const hardware::HardwareModel hw = cluster(gpu.toStdString().c_str(), 1);
        ParallelStrategy s;
        s.tp = 2;
        s.dp = 4;
        s.sequence_parallel = true;
        s.global_batch_size = 32;
        s.attention_kernel = AttentionKernel::Flash2;
        const double reference = estimate(model, s, hw).iteration_ms;
        s.attention_kernel = *hardware::parseAttentionKernel(kernel.toStdString());
        if (s.attention_kernel == AttentionKernel::Unfused)
            s.flash_attention = false;
        const double other = estimate(model, s, hw).iteration_ms;
        QVERIFY(reference > 0);
        if (order == 0)
            QCOMPARE(other, reference);
        else
            QVERIFY2(order < 0 ? other < reference : other > reference,
                qPrintable(QString("flash2 %1 ms, %2 %3 ms").arg(reference).arg(kernel).arg(other)));
    }

    // Ring CP (TE's AttnFuncWithCPAndKVP2P, PyTorch's load-balanced ring) runs step 0 causal and the
    // other cp - 1 steps without the mask: that share of the rank's work at the kernel's unmasked
    // rate (hardware::attentionUnmaskedSpeedup); all-to-all and all-gather CP and no CP stay causal.
    void ringRunsUnmaskedSteps_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("ringSteps");
        QTest::addColumn<double>("share");
        QTest::newRow("no ring") << "h100-80gb" << "cudnn" << 1 << 0.0;
        QTest::newRow("cudnn ring 2") << "h100-80gb" << "cudnn" << 2 << 0.5;
        QTest::newRow("cudnn ring 8") << "h100-80gb" << "cudnn" << 8 << 7.0 / 8;
        QTest::newRow("flash2 ring 32") << "h100-80gb" << "flash2" << 32 << 31.0 / 32;
        QTest::newRow("cudnn ring 4 a100: no measurement") << "a100-80gb" << "cudnn" << 4 << 0.75;
    }
    void ringRunsUnmaskedSteps()
    {
        QFETCH(QString, gpu);
        QFETCH(QString, kernel);
        QFETCH(int, ringSteps);
        QFETCH(double, share);
        QCOMPARE(ringUnmaskedShare(ringSteps), share);
        const hardware::HardwareModel hw = cluster(gpu.toStdString().c_str(), 1);
        ParallelStrategy s;
        s.attention_kernel = *hardware::parseAttentionKernel(kernel.toStdString());
        const double queries = 4096;
        const double causal = attentionKernelTimeFactor(s, hw, 128, queries, 1);
        const double ring = attentionKernelTimeFactor(s, hw, 128, queries, ringSteps);
        const double speedup = hardware::attentionUnmaskedSpeedup(s.attention_kernel, gpu.toStdString(), queries);
        QVERIFY2(std::abs(ring / causal - ((1 - share) + share / speedup)) < 1e-12,
            qPrintable(QString("ring %1, causal %2").arg(ring).arg(causal)));
        if (share > 0 && gpu.startsWith("h100"))
            QVERIFY(ring < causal);
    }

    // A record's kernel is what its run is costed with: the Megatron-Bridge record (cudnn) costed as
    // flash2 is slower, the NeMo 24.07 and long-sequence ones (flash2: their launcher's NVTE_FUSED_ATTN=0,
    // docs/kernels.md §6) and torchtitan (flash2) ones costed as cudnn faster.
    void recordKernelChangesItsPrediction_data()
    {
        QTest::addColumn<QString>("record");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("other");
        QTest::addColumn<bool>("otherFaster");
        QTest::newRow("bridge 25.11 llama3 70b") << "mbridge2511-llama3-70b-64"
                                                 << "cudnn"
                                                 << "flash2" << false;
        QTest::newRow("nemo 24.07 llama3 8b") << "nemo2407-llama3-8b-8"
                                              << "flash2"
                                              << "cudnn" << true;
        QTest::newRow("nemo long-seq 64K") << "nemo-longseq-llama2-7b-64"
                                           << "flash2"
                                           << "cudnn" << true;
        QTest::newRow("torchtitan 8b cp8") << "torchtitan2412-llama31-8b-8-cp8-256k"
                                           << "flash2"
                                           << "cudnn" << true;
    }
    void recordKernelChangesItsPrediction()
    {
        QFETCH(QString, record);
        QFETCH(QString, kernel);
        QFETCH(QString, other);
        QFETCH(bool, otherFaster);
        const runs::ReferenceRun run = runs::readReferenceRun(kRuns / (record.toStdString() + ".json"));
        QCOMPARE(
            QString::fromStdString(std::string(hardware::attentionKernelName(run.strategy.attention_kernel))), kernel);
        const hardware::Efficiency efficiency = hardware::efficiencyFor(run.cluster);
        runs::ReferenceRun changed = run;
        changed.strategy.attention_kernel = *hardware::parseAttentionKernel(other.toStdString());
        changed.attention_kernel = changed.strategy.attention_kernel;
        const double own = runs::compareWithRun(run, efficiency).predicted_iteration_s;
        const double swapped = runs::compareWithRun(changed, efficiency).predicted_iteration_s;
        QVERIFY2(otherFaster ? swapped < own : swapped > own, qPrintable(QString("%1 vs %2").arg(own).arg(swapped)));
    }

    // Strategy JSON: written only away from the default, read back, the old name read, bad values
    // named by key.
    // The search costs its candidates with the kernel it is given (StrategySpace::attention_kernel,
    // copied into every candidate by strategy_search_space.cpp): every plan it returns names that
    // kernel, and a faster kernel gives a faster best plan on the same space.
    void searchCostsTheNamedKernel_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<bool>("fasterThanFlash2");
        QTest::newRow("flash3") << "flash3" << true;
        QTest::newRow("cudnn") << "cudnn" << true;
        QTest::newRow("flash2") << "flash2" << false;
    }
    void searchCostsTheNamedKernel()
    {
        QFETCH(QString, kernel);
        QFETCH(bool, fasterThanFlash2);
        auto run = [](hardware::AttentionKernel k) {
            StrategySearchRequest r;
            r.model = model::modelPreset("llama3-8b");
            r.cluster.gpu = hardware::gpuPreset("h100-80gb");
            r.cluster.num_nodes = 1;
            r.cluster.gpus_per_node = 8;
            r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
            r.global_batch_size = 64;
            r.threads = 1;
            r.top = 3;
            r.space.attention_kernel = k;
            NullProgress progress;
            return searchStrategies(r, progress);
        };
        const hardware::AttentionKernel named = *hardware::parseAttentionKernel(kernel.toStdString());
        const StrategySearchResult found = run(named);
        const StrategySearchResult reference = run(hardware::AttentionKernel::Flash2);
        QVERIFY(!found.best.empty() && !reference.best.empty());
        for (const Estimate& plan : found.best)
            QCOMPARE(plan.strategy.attention_kernel, named);
        if (fasterThanFlash2)
            QVERIFY2(found.best.front().iteration_ms < reference.best.front().iteration_ms,
                qPrintable(QString("%1 ms against flash2's %2 ms")
                               .arg(found.best.front().iteration_ms)
                               .arg(reference.best.front().iteration_ms)));
        else
            QCOMPARE(found.best.front().iteration_ms, reference.best.front().iteration_ms);
    }

    void strategyJson_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("flash2") << "flash2";
        QTest::newRow("flash3") << "flash3";
        QTest::newRow("cudnn") << "cudnn";
        QTest::newRow("mpt-triton") << "mpt-triton";
        QTest::newRow("unfused") << "unfused";
    }
    void strategyJson()
    {
        QFETCH(QString, kernel);
        const model::ModelDescription model = model::modelPreset("llama3.1-8b");
        ParallelStrategy s;
        s.tp = 2;
        s.dp = 4;
        s.sequence_parallel = true;
        s.global_batch_size = 32;
        QVERIFY(!toJson(s).contains("attention_kernel"));
        s.attention_kernel = *hardware::parseAttentionKernel(kernel.toStdString());
        s.flash_attention = s.attention_kernel != AttentionKernel::Unfused;
        const JsonDocument document = JsonDocument::parse(toJson(s).dump(), "plan.json");
        QCOMPARE(QString::fromStdString(document.root()["attention_kernel"].string()), kernel);
        QCOMPARE(readStrategy(document.root(), model, 8), s);
    }
    void oldFlashNameReads()
    {
        const JsonDocument document = JsonDocument::parse(
            R"({"tp": 2, "dp": 4, "global_batch_size": 32, "attention_kernel": "flash"})", "s.json");
        QCOMPARE(readStrategy(document.root(), model::modelPreset("llama3.1-8b"), 8).attention_kernel,
            AttentionKernel::Flash2);
    }
    void badKernelIsNamed_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown") << R"({"tp": 2, "dp": 4, "global_batch_size": 32, "attention_kernel": "xformers"})"
                                 << "cudnn";
        QTest::newRow("fused kernel without flash")
            << R"({"tp": 2, "dp": 4, "global_batch_size": 32, "flash_attention": false, "attention_kernel": "cudnn"})"
            << "unfused";
    }
    void badKernelIsNamed()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        const JsonDocument bad = JsonDocument::parse(json.toStdString(), "s.json");
        try {
            readStrategy(bad.root(), model::modelPreset("llama3.1-8b"), 8);
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/attention_kernel"));
            QVERIFY2(QString::fromStdString(error.expected()).contains(expected), error.what());
            QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("s.json"));
        }
    }
};

QTEST_GUILESS_MAIN(TestAttentionKernelChoice)
#include "tst_attention_kernel_choice.moc"
