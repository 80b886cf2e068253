// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA graphs (core/megatron/cuda_graphs.*; docs/kernels.md §7, "CUDA graphs"): the names, the
// host operations a captured region leaves, the frameworks' rules, the strategy key, and a layer
// whose host is slower than its GPU getting faster while a GPU-bound one does not move.
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/megatron/cuda_graphs.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search_space.h"
#include "core/megatron/stratex_request.h"
#include "core/model/model_presets.h"

#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;

Q_DECLARE_METATYPE(stratex::megatron::CudaGraphs)
Q_DECLARE_METATYPE(stratex::megatron::Framework)
Q_DECLARE_METATYPE(stratex::megatron::Recompute)

namespace {

// A GPT model of hidden `hidden` (heads of 64, 4h GeLU MLP), sequence 1024.
model::ModelDescription gpt(int hidden)
{
    model::ModelDescription m = model::modelPreset("gpt3-13b");
    m.num_layers = 24;
    m.hidden_size = hidden;
    m.ffn_hidden_size = 4 * hidden;
    m.num_heads = hidden / 64;
    m.num_kv_heads = hidden / 64;
    m.seq_length = 1024;
    return m;
}

double passS(const LayerCost& cost, bool backward)
{
    return backward ? cost.backward_compute_s + cost.backward_comm_s : cost.forwardS();
}

} // namespace

class TestCudaGraphs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void names_data()
    {
        QTest::addColumn<CudaGraphs>("value");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("modules"); // Megatron's --cuda-graph-modules
        QTest::newRow("none") << CudaGraphs::None << "none"
                              << "";
        QTest::newRow("attn") << CudaGraphs::Attention << "attn"
                              << "attn";
        QTest::newRow("moe-router") << CudaGraphs::MoeRouter << "moe-router"
                                    << "moe_router moe_preprocess";
        QTest::newRow("attn-moe-router") << CudaGraphs::AttentionMoeRouter << "attn-moe-router"
                                         << "attn moe_router moe_preprocess";
        QTest::newRow("layer") << CudaGraphs::Layer << "layer"
                               << "";
        QTest::newRow("full-iteration") << CudaGraphs::FullIteration << "full-iteration"
                                        << "";
    }
    void names()
    {
        QFETCH(CudaGraphs, value);
        QFETCH(QString, name);
        QFETCH(QString, modules);
        QCOMPARE(QString::fromUtf8(cudaGraphsName(value)), name);
        QCOMPARE(parseCudaGraphs(name.toStdString()), std::optional<CudaGraphs>(value));
        QCOMPARE(QString::fromStdString(megatronCudaGraphModules(value)), modules);
        QCOMPARE(parseCudaGraphs("full_iteration"), std::optional<CudaGraphs>());
    }

    // A pass of 20 attention, 25 router, 15 preprocess and 100 other operations: a captured region
    // replays as one; moe_router captures only MoE layers, the whole step none per layer.
    void issuedHostOps_data()
    {
        QTest::addColumn<CudaGraphs>("graphs");
        QTest::addColumn<bool>("moeLayer");
        QTest::addColumn<int>("issued");
        QTest::newRow("eager") << CudaGraphs::None << true << 160;
        QTest::newRow("attn") << CudaGraphs::Attention << true << 1 + 140;
        QTest::newRow("router, MoE") << CudaGraphs::MoeRouter << true << 20 + 1 + 100;
        QTest::newRow("router, dense") << CudaGraphs::MoeRouter << false << 160;
        QTest::newRow("attn and router, MoE") << CudaGraphs::AttentionMoeRouter << true << 1 + 1 + 100;
        QTest::newRow("attn and router, dense") << CudaGraphs::AttentionMoeRouter << false << 1 + 140;
        QTest::newRow("layer, dense") << CudaGraphs::Layer << false << 1;
        QTest::newRow("layer, MoE: the MLP side eager") << CudaGraphs::Layer << true << 1 + 140;
        QTest::newRow("full iteration") << CudaGraphs::FullIteration << true << 0;
    }
    void issuedHostOps()
    {
        QFETCH(CudaGraphs, graphs);
        QFETCH(bool, moeLayer);
        QFETCH(int, issued);
        const LayerHostOps ops = moeLayer ? LayerHostOps { 20, 25, 15, 100 } : LayerHostOps { 20, 0, 0, 140 };
        QCOMPARE(megatron::issuedHostOps(graphs, ops, moeLayer), issued);
    }

    // Megatron-Core's TransformerConfig rules and MoE README, torchtitan's _validate_cuda_graphs,
    // and the frameworks with no graphs: a substring of the problem, empty when none.
    void problems_data()
    {
        QTest::addColumn<CudaGraphs>("graphs");
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<bool>("moe");
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<int>("pp");
        QTest::addColumn<bool>("flex");
        QTest::addColumn<QString>("problem");
        const Framework mc = Framework::MegatronCore;
        const Recompute none = Recompute::None;
        QTest::newRow("none anywhere") << CudaGraphs::None << Framework::DeepSpeed << false << none << 1 << false << "";
        QTest::newRow("attn, dense") << CudaGraphs::Attention << mc << false << none << 1 << false << "";
        QTest::newRow("attn, Bridge") << CudaGraphs::Attention << Framework::MegatronBridge << false << none << 4
                                      << false << "";
        QTest::newRow("router, dense") << CudaGraphs::MoeRouter << mc << false << none << 1 << false
                                       << "has no MoE layers";
        QTest::newRow("router, MoE") << CudaGraphs::AttentionMoeRouter << mc << true << none << 1 << false << "";
        QTest::newRow("layer, MoE") << CudaGraphs::Layer << mc << true << none << 1 << false << "dynamic shapes";
        QTest::newRow("layer, full recompute")
            << CudaGraphs::Layer << mc << false << Recompute::Full << 1 << false << "full recompute";
        QTest::newRow("full iteration, full recompute")
            << CudaGraphs::FullIteration << mc << false << Recompute::Full << 1 << false << "";
        QTest::newRow("full iteration, MoE alltoall")
            << CudaGraphs::FullIteration << mc << true << none << 1 << false << "flex (HybridEP)";
        QTest::newRow("full iteration, MoE flex") << CudaGraphs::FullIteration << mc << true << none << 1 << true << "";
        QTest::newRow("torchtitan step") << CudaGraphs::FullIteration << Framework::Torchtitan << false << none << 1
                                         << false << "";
        QTest::newRow("torchtitan with PP") << CudaGraphs::FullIteration << Framework::Torchtitan << false << none << 2
                                            << false << "pipeline parallelism";
        QTest::newRow("torchtitan per layer")
            << CudaGraphs::Attention << Framework::Torchtitan << false << none << 1 << false << "whole step";
        QTest::newRow("DeepSpeed") << CudaGraphs::FullIteration << Framework::DeepSpeed << false << none << 1 << false
                                   << "no CUDA-graph option";
    }
    void problems()
    {
        QFETCH(CudaGraphs, graphs);
        QFETCH(Framework, framework);
        QFETCH(bool, moe);
        QFETCH(Recompute, recompute);
        QFETCH(int, pp);
        QFETCH(bool, flex);
        QFETCH(QString, problem);
        const model::ModelDescription m = model::modelPreset(moe ? "mixtral-8x7b" : "llama3.1-8b");
        ParallelStrategy s;
        s.pp = pp;
        s.dp = 8 / pp;
        s.ep = moe ? 8 / pp : 1;
        s.global_batch_size = 64;
        s.recompute = recompute;
        s.framework = framework;
        s.moe_token_dispatcher = flex ? MoeDispatcher::Flex : MoeDispatcher::AllToAll;
        s.cuda_graphs = graphs;
        const QString found = QString::fromStdString(cudaGraphsProblem(s, m));
        if (problem.isEmpty())
            QVERIFY2(found.isEmpty(), qPrintable(found));
        else
            QVERIFY2(found.contains(problem), qPrintable(found));
        // strategyProblems says the same.
        bool said = false;
        for (const std::string& p : strategyProblems(s, m, 8))
            said = said || QString::fromStdString(p) == found;
        QCOMPARE(said, !problem.isEmpty());
    }

    // The strategy key: a name, written only when not none; anything else an error naming the key.
    void strategyKey_data()
    {
        QTest::addColumn<QString>("value"); // the JSON text, empty: absent
        QTest::addColumn<int>("graphs"); // CudaGraphs, or -1: an error
        QTest::newRow("absent") << "" << int(CudaGraphs::None);
        QTest::newRow("attn") << "\"attn\"" << int(CudaGraphs::Attention);
        QTest::newRow("full-iteration") << "\"full-iteration\"" << int(CudaGraphs::FullIteration);
        QTest::newRow("Megatron's spelling") << "\"full_iteration\"" << -1;
        QTest::newRow("a boolean") << "true" << -1;
    }
    void strategyKey()
    {
        QFETCH(QString, value);
        QFETCH(int, graphs);
        const std::string text = "{\"global_batch_size\": 16"
            + (value.isEmpty() ? std::string() : ", \"cuda_graphs\": " + value.toStdString()) + "}";
        const JsonDocument doc = JsonDocument::parse(text, "plan.json");
        const model::ModelDescription m = model::modelPreset("llama3.1-8b");
        if (graphs < 0) {
            try {
                readStrategy(doc.root(), m, 8);
                QFAIL("no error");
            } catch (const InputError& error) {
                QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/cuda_graphs"));
            }
            return;
        }
        const ParallelStrategy s = readStrategy(doc.root(), m, 8);
        QCOMPARE(int(s.cuda_graphs), graphs);
        const nlohmann::ordered_json written = toJson(s);
        QCOMPARE(written.contains("cuda_graphs"), !value.isEmpty());
        if (!value.isEmpty())
            QCOMPARE(QString::fromStdString(written["cuda_graphs"].dump()), value);
    }

    // A layer whose host is slower than its GPU (hidden 1024 at micro-batch 1 on an H100: both
    // passes host-bound, host_overhead.h) gets faster the more is captured, down to its GPU time
    // under the whole step's graph; a GPU-bound layer (hidden 4096, micro-batch 8) does not move.
    void hostBoundLayersGetFaster_data()
    {
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("microBatch");
        QTest::addColumn<bool>("hostBound");
        QTest::newRow("h1024 mbs1") << 1024 << 1 << true;
        QTest::newRow("h4096 mbs8") << 4096 << 8 << false;
    }
    void hostBoundLayersGetFaster()
    {
        QFETCH(int, hidden);
        QFETCH(int, microBatch);
        QFETCH(bool, hostBound);
        const hardware::HardwareModel hw = test::gpus("h100-80gb", 1);
        ParallelStrategy s;
        s.micro_batch_size = microBatch;
        const auto cost = [&](CudaGraphs g) {
            s.cuda_graphs = g;
            return layerCost(gpt(hidden), s, hw, false, false);
        };
        const LayerCost eager = cost(CudaGraphs::None);
        const LayerCost attn = cost(CudaGraphs::Attention);
        const LayerCost layer = cost(CudaGraphs::Layer);
        const LayerCost step = cost(CudaGraphs::FullIteration);
        for (const bool backward : { false, true }) {
            if (hostBound) {
                QVERIFY(passS(attn, backward) < passS(eager, backward));
                QVERIFY(passS(layer, backward) < passS(attn, backward));
                QVERIFY(passS(step, backward) <= passS(layer, backward));
                // Eager, the pass lasts its host's time.
                const int kernels = layerForwardKernels(false) * (backward ? 2 : 1);
                QVERIFY(std::abs(passS(eager, backward) - eagerHostS(kernels)) < 1e-12);
            } else {
                QCOMPARE(passS(attn, backward), passS(eager, backward));
                QCOMPARE(passS(step, backward), passS(eager, backward));
            }
        }
    }

    // The search puts the user's graphs on every candidate; a MoE model captured whole runs on
    // HybridEP (the flex dispatcher), as Megatron-Bridge's full-iteration recipes do.
    void theSearchCarriesTheGraphs_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<CudaGraphs>("graphs");
        QTest::addColumn<bool>("flex");
        QTest::newRow("dense, layer") << "llama3-8b" << CudaGraphs::Layer << false;
        QTest::newRow("MoE, attn and router") << "mixtral-8x7b" << CudaGraphs::AttentionMoeRouter << false;
        QTest::newRow("MoE, full iteration") << "mixtral-8x7b" << CudaGraphs::FullIteration << true;
    }
    void theSearchCarriesTheGraphs()
    {
        QFETCH(QString, model);
        QFETCH(CudaGraphs, graphs);
        QFETCH(bool, flex);
        StrategySearchRequest r;
        r.model = model::modelPreset(model.toStdString());
        r.cluster.gpu = hardware::gpuPreset("b200-192gb");
        r.cluster.num_nodes = 1;
        r.cluster.gpus_per_node = 8;
        r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
        r.global_batch_size = 64;
        r.space.cuda_graphs = graphs;
        const std::vector<ParallelStrategy> all = enumerateStrategies(r);
        QVERIFY(!all.empty());
        for (const ParallelStrategy& s : all) {
            QCOMPARE(s.cuda_graphs, graphs);
            QCOMPARE(s.moe_token_dispatcher == MoeDispatcher::Flex, flex);
        }
    }

    // Graphs the model or the framework cannot take at all are an input error before the search,
    // naming the setting.
    void impossibleGraphsAreAnInputError_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("graphs");
        QTest::addColumn<QString>("error"); // a substring; empty: none
        QTest::newRow("MoE, attn and router") << "mixtral-8x7b"
                                              << "megatron-core"
                                              << "attn-moe-router"
                                              << "";
        QTest::newRow("MoE, whole layers") << "mixtral-8x7b"
                                           << "megatron-core"
                                           << "layer"
                                           << "dynamic shapes";
        QTest::newRow("dense, router") << "llama3-8b"
                                       << "megatron-core"
                                       << "moe-router"
                                       << "no MoE layers";
        QTest::newRow("DeepSpeed") << "llama3-8b"
                                   << "deepspeed"
                                   << "full-iteration"
                                   << "no CUDA-graph option";
    }
    void impossibleGraphsAreAnInputError()
    {
        QFETCH(QString, model);
        QFETCH(QString, framework);
        QFETCH(QString, graphs);
        QFETCH(QString, error);
        StratexInputs inputs;
        inputs.model_flags.preset = model.toStdString();
        inputs.given_model.insert("model");
        inputs.stratex.gpu = "b200-192gb";
        inputs.stratex.global_batch_size = 64;
        inputs.stratex.framework = framework.toStdString();
        inputs.stratex.cuda_graphs = graphs.toStdString();
        QString found;
        try {
            resolveStratexSearch(inputs);
        } catch (const Error& e) {
            found = QString::fromUtf8(e.what());
        }
        if (error.isEmpty()) {
            QVERIFY2(found.isEmpty(), qPrintable(found));
        } else {
            QVERIFY2(found.contains(error), qPrintable(found));
            QVERIFY2(found.startsWith("--cuda-graphs " + graphs), qPrintable(found));
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaGraphs)
#include "tst_cuda_graphs.moc"
