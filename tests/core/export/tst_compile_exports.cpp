// SPDX-License-Identifier: GPL-3.0-or-later
// What the exports write for a plan's torch.compile choice (strategy "compile"; docs/kernels.md
// "Eager and compiled blocks"): torchtitan's compile.enable in the v0.2 TOML and the config module,
// and Megatron-LM's word on its own fused kernels.
#include <QTest>

#include "core/export/megatron_plan_args.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/export/torchtitan_module.h"

#include "plan_file_test_util.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;

class TestCompileExports : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // torchtitan: [compile] enable = true (TOML) and config.compile.enable = True (module) for a plan
    // that compiles, or for AsyncTP, which needs it; nothing for an eager plan (compile.enable's
    // default False).
    void torchtitan_data()
    {
        QTest::addColumn<QString>("items");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<bool>("asyncTp");
        QTest::newRow("default: eager") << "dp=8 zero=3 gbs=16 framework=torchtitan" << false << false;
        QTest::newRow("on") << "dp=8 zero=3 gbs=16 framework=torchtitan compile=on" << true << false;
        QTest::newRow("off") << "dp=8 zero=3 gbs=16 framework=torchtitan compile=off" << false << false;
        QTest::newRow("on, the loss eager")
            << "dp=8 zero=3 gbs=16 framework=torchtitan compile=on compileloss=0" << true << false;
        QTest::newRow("AsyncTP: compiled")
            << "tp=4 dp=2 sp=1 zero=3 gbs=16 framework=torchtitan tpoverlap=1" << true << true;
        QTest::newRow("AsyncTP and on") << "tp=4 dp=2 sp=1 zero=3 gbs=16 framework=torchtitan tpoverlap=1 compile=on"
                                        << true << true;
    }
    void torchtitan()
    {
        QFETCH(QString, items);
        QFETCH(bool, enabled);
        QFETCH(bool, asyncTp);
        const megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, items);
        const std::string toml = torchtitanPlanConfig(plan).text;
        QCOMPARE(toml.find("\n[compile]\nenable = true\n") != std::string::npos, enabled);
        QCOMPARE(toml.find("enable_async_tensor_parallel = true") != std::string::npos, asyncTp);
        const std::string module = torchtitanModule(plan).text;
        QCOMPARE(module.find("config.compile.enable = True\n") != std::string::npos, enabled);
        QCOMPARE(module.find("config.compile.enable_async_tensor_parallel = True\n") != std::string::npos, asyncTp);
        // The loss compiled with the blocks unless the plan says otherwise (components' default).
        QCOMPARE(module.find("config.compile.components = [\"model\"]\n") != std::string::npos,
            enabled && items.contains("compileloss=0"));
    }

    // Megatron-LM has no torch.compile switch: compile on is said as a comment (its fused kernels do
    // the same), compile off as an approximation (they run anyway); the default says nothing.
    void megatron_data()
    {
        QTest::addColumn<QString>("items");
        QTest::addColumn<QString>("comment"); // part of a comment, empty: none about compile
        QTest::addColumn<bool>("approximation");
        QTest::newRow("default") << "tp=2 dp=4 sp=1 gbs=16"
                                 << "" << false;
        QTest::newRow("on") << "tp=2 dp=4 sp=1 gbs=16 compile=on"
                            << "compile on: Megatron-LM has no torch.compile" << false;
        QTest::newRow("off") << "tp=2 dp=4 sp=1 gbs=16 compile=off"
                             << "compile off: Megatron-LM runs its fused kernels" << true;
    }
    void megatron()
    {
        QFETCH(QString, items);
        QFETCH(QString, comment);
        QFETCH(bool, approximation);
        const megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, items);
        const MegatronPlanArgs m = megatronPlanArgs(plan, nullptr);
        bool commented = false;
        for (const std::string& line : m.comments)
            commented = commented || QString::fromStdString(line).contains("compile");
        QCOMPARE(commented, !comment.isEmpty());
        if (!comment.isEmpty())
            QVERIFY2(joined(m.comments).find(comment.toStdString()) != std::string::npos, joined(m.comments).c_str());
        bool noted = false;
        for (const ExportNote& note : m.notes)
            noted = noted || note.field == "strategy.compile";
        QCOMPARE(noted, approximation);
    }
};

QTEST_GUILESS_MAIN(TestCompileExports)
#include "tst_compile_exports.moc"
