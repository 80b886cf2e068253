// SPDX-License-Identifier: GPL-3.0-or-later
// Stratex plan files (core/megatron/plan_file.*): what the reader accepts at the file's root.
#include <QtTest>

#include "core/common/error.h"
#include "core/megatron/plan_file.h"

using namespace stratex;
using namespace stratex::megatron;

class TestPlanFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A plan file's root keys are all read: a strategy key beside "strategy" (where it would be
    // ignored) and an unknown key are errors naming the key.
    void planFileRootKeys_data()
    {
        QTest::addColumn<QString>("extra"); // a root member, or ""
        QTest::addColumn<QString>("keyPath"); // "" for accepted
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("plain") << "" << "" << "";
        QTest::newRow("prediction") << R"("prediction":{"iteration_ms":1},)" << "" << "";
        QTest::newRow("framework beside strategy") << R"("framework":"megatron-bridge",)" << "/framework"
                                                   << "a strategy key";
        QTest::newRow("unknown key") << R"("notes":"x",)" << "/notes" << "one of the plan file's keys";
    }
    void planFileRootKeys()
    {
        QFETCH(QString, extra);
        QFETCH(QString, keyPath);
        QFETCH(QString, messagePart);
        const QString text = R"({"format":"stratex-plan","version":1,)" + extra
            + R"("model":{"preset":"llama2-7b"},"cluster":{"gpu":{"preset":"h100-80gb"},"num_nodes":1,)"
              R"("gpus_per_node":8},"strategy":{"tp":8,"global_batch_size":8}})";
        try {
            const PlanFile plan = PlanFile::parse(text.toStdString(), "plan.json");
            QVERIFY2(keyPath.isEmpty(), "accepted");
            QCOMPARE(plan.strategy.tp, 8);
        } catch (const InputError& error) {
            QVERIFY2(!keyPath.isEmpty(), error.what());
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
            QVERIFY2(QString(error.what()).contains(messagePart), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPlanFile)
#include "tst_plan_file.moc"
