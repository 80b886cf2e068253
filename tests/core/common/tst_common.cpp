// SPDX-License-Identifier: GPL-3.0-or-later
// core/common: the input limits (one table, listed in the README and used by the settings tables).
#include <QFile>
#include <QTest>

#include "core/common/input_limits.h"
#include "core/planner/planner_setting_table.h"
#include "core/profile/synth/synthesis_settings.h"
#include "core/search/search_setting_table.h"

using namespace stratex;

class TestCommon : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readmeListsEveryLimit_data();
    void readmeListsEveryLimit();
    void settingTablesUseTheLimits_data();
    void settingTablesUseTheLimits();
};

void TestCommon::readmeListsEveryLimit_data()
{
    QTest::addColumn<QString>("row");
    for (const limits::Limit& limit : limits::allLimits())
        QTest::newRow(std::string(limit.what).c_str()) << QString::fromStdString(limits::markdownRow(limit));
}

// The README's "Limits" table is these rows, verbatim: change a limit, paste its row.
void TestCommon::readmeListsEveryLimit()
{
    QFETCH(QString, row);
    QFile readme(QStringLiteral(STRATEX_README_PATH));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    QVERIFY(text.contains(QStringLiteral("\n## Limits\n")));
    const QByteArray message = "README.md's Limits table lacks the row\n" + row.toUtf8();
    QVERIFY2(text.contains(QLatin1Char('\n') + row + QLatin1Char('\n')), message.constData());
}

void TestCommon::settingTablesUseTheLimits_data()
{
    QTest::addColumn<double>("maximum");
    QTest::addColumn<double>("limit");
    const auto& search = search::searchSettingTable();
    const auto& synth = profile::synth::synthesisSettingTable();
    const auto& planner = planner::plannerSettingTable();
    QTest::newRow("search memory-constraint")
        << search.at("memory-constraint").spec.maximum << double(limits::kMaxGpuMemoryGb);
    QTest::newRow("search num-nodes") << search.at("num-nodes").spec.maximum << double(limits::kMaxNodes);
    QTest::newRow("search num-gpus-per-node")
        << search.at("num-gpus-per-node").spec.maximum << double(limits::kMaxGpusPerNode);
    QTest::newRow("search num-layers") << search.at("num-layers").spec.maximum << double(limits::kMaxLayers);
    QTest::newRow("search settle-bsz") << search.at("settle-bsz").spec.maximum << double(limits::kMaxBatch);
    QTest::newRow("synth gpu-memory-gb")
        << synth.at("gpu-memory-gb").spec.maximum << double(limits::kMaxGpuMemoryGb);
    QTest::newRow("synth num-nodes") << synth.at("num-nodes").spec.maximum << double(limits::kMaxNodes);
    QTest::newRow("synth num-layers") << synth.at("num-layers").spec.maximum << double(limits::kMaxLayers);
    QTest::newRow("planner memory-mb") << planner.at("memory-mb").spec.maximum << limits::kMaxPlannerMemoryMb;
}

void TestCommon::settingTablesUseTheLimits()
{
    QFETCH(double, maximum);
    QFETCH(double, limit);
    QCOMPARE(maximum, limit);
}

QTEST_GUILESS_MAIN(TestCommon)
#include "tst_common.moc"
