// SPDX-License-Identifier: GPL-3.0-or-later
// What the exports write for a plan's CUDA graphs (strategy "cuda_graphs"; docs/kernels.md §7):
// Megatron-LM's --cuda-graph-impl / --cuda-graph-modules (with full_iteration's NaN check off and a
// MoE model's fixed expert capacity), Megatron-Bridge's model fields, torchtitan main's
// training.disable_cuda_graphs for every plan costed eager, and a note where a target runs eagerly.
#include <QTest>

#include "core/export/galvatron_plan_from_strategy.h"
#include "core/export/megatron_bridge_recipe.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/export/torchtitan_module.h"

#include "export_test_util.h"
#include "plan_file_test_util.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;

namespace {

bool hasNote(const std::vector<ExportNote>& notes, const std::string& field)
{
    for (const ExportNote& note : notes)
        if (note.field == field)
            return true;
    return false;
}

std::string fieldValue(const MegatronBridgeRecipe& r, const std::string& path)
{
    for (const MegatronBridgeField& field : r.fields)
        if (field.path == path)
            return field.value;
    return {};
}

} // namespace

class TestCudaGraphExports : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void megatron_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("items");
        QTest::addColumn<QString>("impl"); // --cuda-graph-impl, empty: not written
        QTest::addColumn<QString>("modules"); // --cuda-graph-modules, empty: not written
        QTest::addColumn<bool>("moeCapacity"); // full-iteration MoE: HybridEP with a fixed capacity
        const QString moe = "ep=8 dp=8 zero=1 gbs=64 mbs=1 ";
        QTest::newRow("none") << "llama3.1-8b"
                              << "tp=2 dp=4 sp=1 gbs=16"
                              << ""
                              << "" << false;
        QTest::newRow("attn, dense") << "llama3.1-8b"
                                     << "tp=2 dp=4 sp=1 gbs=16 graphs=attn"
                                     << "transformer_engine"
                                     << "attn" << false;
        QTest::newRow("layer, dense") << "llama3.1-8b"
                                      << "tp=2 dp=4 sp=1 gbs=16 graphs=layer"
                                      << "transformer_engine"
                                      << "" << false;
        QTest::newRow("full iteration, dense") << "llama3.1-8b"
                                               << "tp=2 dp=4 sp=1 gbs=16 graphs=full-iteration"
                                               << "full_iteration"
                                               << "" << false;
        QTest::newRow("router, MoE") << "mixtral-8x7b" << moe + "graphs=moe-router"
                                     << "transformer_engine"
                                     << "moe_router moe_preprocess" << false;
        QTest::newRow("attn and router, MoE") << "mixtral-8x7b" << moe + "graphs=attn-moe-router"
                                              << "transformer_engine"
                                              << "attn moe_router moe_preprocess" << false;
        QTest::newRow("full iteration, MoE") << "mixtral-8x7b" << moe + "dispatcher=flex graphs=full-iteration"
                                             << "full_iteration"
                                             << "" << true;
    }
    void megatron()
    {
        QFETCH(QString, preset);
        QFETCH(QString, items);
        QFETCH(QString, impl);
        QFETCH(QString, modules);
        QFETCH(bool, moeCapacity);
        const megatron::PlanFile plan = planOf(qPrintable(preset), 0, 0, "b200-192gb", 1, items);
        const MegatronPlanArgs m = megatronPlanArgs(plan, nullptr);
        const megatron_rules::Args args = argsOf(m.arguments);
        QCOMPARE(args.contains("--cuda-graph-impl"), !impl.isEmpty());
        if (!impl.isEmpty())
            QCOMPARE(QString::fromStdString(args.at("--cuda-graph-impl")), impl);
        QCOMPARE(args.contains("--cuda-graph-modules"), !modules.isEmpty());
        if (!modules.isEmpty())
            QCOMPARE(QString::fromStdString(args.at("--cuda-graph-modules")), modules);
        QCOMPARE(args.contains("--no-check-for-nan-in-loss-and-grad"), impl == "full_iteration");
        QCOMPARE(args.contains("--moe-expert-rank-capacity-factor"), moeCapacity);
        QCOMPARE(args.contains("--moe-paged-stash"), moeCapacity);
        if (moeCapacity)
            QCOMPARE(args.at("--moe-flex-dispatcher-backend"), std::string("hybridep"));
        // Megatron accepts them; the graphs' memory is said not to be modelled.
        const std::map<std::string, std::string> env(m.environment.set.begin(), m.environment.set.end());
        const bool unset
            = std::find(m.environment.unset.begin(), m.environment.unset.end(), "CUDA_DEVICE_MAX_CONNECTIONS")
            != m.environment.unset.end();
        const std::string violations
            = joined(megatron_rules::megatronViolations(args, env, unset, int(plan.cluster.worldSize())));
        QVERIFY2(violations.empty(), violations.c_str());
        QCOMPARE(hasNote(m.notes, "strategy.cuda_graphs"), !impl.isEmpty());

        // Megatron-Bridge: the same choice in TransformerConfig's fields.
        const MegatronBridgeRecipe r = megatronBridgePlanRecipe(plan);
        QCOMPARE(
            fieldValue(r, "model.cuda_graph_impl"), impl.isEmpty() ? std::string() : "\"" + impl.toStdString() + "\"");
        if (!impl.isEmpty()) {
            std::string list = "[";
            for (const QString& word : modules.split(' ', Qt::SkipEmptyParts))
                list += (list.size() > 1 ? ", \"" : "\"") + word.toStdString() + "\"";
            QCOMPARE(fieldValue(r, "model.cuda_graph_modules"), list + "]");
        }
        // TECudaGraphHelper asserts NCCL_GRAPH_REGISTER=0 beside the recipe's expandable segments.
        const std::string text = megatronBridgeRecipeText(r);
        QCOMPARE(text.find("os.environ.setdefault(\"NCCL_GRAPH_REGISTER\", \"0\")") != std::string::npos,
            impl == "transformer_engine");
        // GPTModelProvider asserts TE's RNG tracker with any graph.
        QCOMPARE(fieldValue(r, "model.use_te_rng_tracker"), impl.isEmpty() ? std::string() : std::string("True"));
        QCOMPARE(fieldValue(r, "rng.te_rng_tracker"), impl.isEmpty() ? std::string() : std::string("True"));
        QCOMPARE(fieldValue(r, "rerun_state_machine.check_for_nan_in_loss"),
            impl == "full_iteration" ? std::string("False") : std::string());
        QCOMPARE(fieldValue(r, "model.moe_paged_stash"), moeCapacity ? std::string("True") : std::string());
    }

    // torchtitan main captures the step unless told not to (trainer.py @ b5bcd76c): an eager plan
    // turns it off, a full-iteration plan leaves it on; v0.2 has no graphs and says so.
    // A Megatron plan exported to torchtitan: graphs it cannot take run eagerly, with a note.
    void torchtitan_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("items");
        QTest::addColumn<bool>("disabled");
        QTest::addColumn<bool>("noted"); // the config module says the step runs eagerly against the plan
        QTest::newRow("eager") << "llama3.1-8b"
                               << "dp=8 zero=3 gbs=16 framework=torchtitan" << true << false;
        QTest::newRow("full iteration") << "llama3.1-8b"
                                        << "dp=8 zero=3 gbs=16 framework=torchtitan graphs=full-iteration" << false
                                        << false;
        QTest::newRow("per layer, a Megatron plan") << "llama3.1-8b"
                                                    << "tp=2 dp=4 sp=1 gbs=16 graphs=attn" << true << true;
        QTest::newRow("full iteration with EP, a Megatron plan")
            << "mixtral-8x7b"
            << "ep=8 dp=8 zero=1 gbs=64 dispatcher=flex graphs=full-iteration" << true << true;
    }
    void torchtitan()
    {
        QFETCH(QString, preset);
        QFETCH(QString, items);
        QFETCH(bool, disabled);
        QFETCH(bool, noted);
        const megatron::PlanFile plan = planOf(qPrintable(preset), 0, 0, "h100-80gb", 1, items);
        const TorchtitanConfig module = torchtitanModule(plan);
        QCOMPARE(module.text.find("config.training.disable_cuda_graphs = True\n") != std::string::npos, disabled);
        QCOMPARE(hasNote(module.notes, "strategy.cuda_graphs"), noted);
        // torchtitan v0.2 has no graphs at all: any plan with them says so.
        QCOMPARE(hasNote(torchtitanPlanConfig(plan).notes, "strategy.cuda_graphs"), items.contains("graphs="));
    }

    // Galvatron and the PaddleNLP port run eagerly: a plan with graphs exports with a note.
    void galvatronSaysEager_data()
    {
        QTest::addColumn<QString>("items");
        QTest::addColumn<bool>("noted");
        QTest::newRow("none") << "tp=2 dp=4 sp=1 gbs=16" << false;
        QTest::newRow("attn") << "tp=2 dp=4 sp=1 gbs=16 graphs=attn" << true;
    }
    void galvatronSaysEager()
    {
        QFETCH(QString, items);
        QFETCH(bool, noted);
        const megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, items);
        QCOMPARE(hasNote(galvatronPlanFromStrategy(plan, "Galvatron").notes, "strategy.cuda_graphs"), noted);
    }
};

QTEST_GUILESS_MAIN(TestCudaGraphExports)
#include "tst_cuda_graph_exports.moc"
