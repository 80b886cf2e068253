// SPDX-License-Identifier: GPL-3.0-or-later
// core/common/checked_math.h: products and sums of sizes in 64 bits; a zero, negative,
// overflowing or out-of-bound product is an input error naming the keys (issue 26: tp 65536 x
// dp 65536 wrapped to 0 in int and was divided by).
#include <QTest>

#include <cstdint>
#include <limits>

#include "core/common/checked_math.h"
#include "core/common/error.h"

using namespace stratex;

class TestCheckedMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void products_data();
    void products();
    void sums_data();
    void sums();
};

void TestCheckedMath::products_data()
{
    QTest::addColumn<qint64>("a");
    QTest::addColumn<qint64>("b");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("expected"); // -1: an error
    QTest::addColumn<QString>("message"); // what the error names

    const qint64 int64Max = std::numeric_limits<std::int64_t>::max();
    const qint64 intMax = std::numeric_limits<int>::max();
    QTest::newRow("ordinary") << qint64(8) << qint64(16) << int64Max << qint64(128) << QString();
    QTest::newRow("wraps to 0 in int") << qint64(65536) << qint64(65536) << intMax << qint64(-1)
                                       << QStringLiteral("tp x dp: expected a product of at least 1 and at most "
                                                         "2147483647, found tp x dp = 65536 x 65536 exceeds");
    QTest::newRow("fits 64 bits") << qint64(65536) << qint64(65536) << int64Max << qint64(4294967296LL) << QString();
    QTest::newRow("overflows 64 bits") << (qint64(1) << 62) << qint64(8) << int64Max << qint64(-1)
                                       << QStringLiteral("tp x dp");
    QTest::newRow("wraps to small in int") << qint64(8) << qint64(536870913) << intMax << qint64(-1)
                                           << QStringLiteral("8 x 536870913");
    QTest::newRow("zero") << qint64(0) << qint64(8) << int64Max << qint64(-1)
                          << QStringLiteral("tp must be at least 1, found 0");
    QTest::newRow("negative") << qint64(8) << qint64(-2) << int64Max << qint64(-1)
                              << QStringLiteral("dp must be at least 1, found -2");
    QTest::newRow("at the limit") << qint64(2) << qint64(4) << qint64(8) << qint64(8) << QString();
    QTest::newRow("over the limit") << qint64(3) << qint64(3) << qint64(8) << qint64(-1) << QStringLiteral("exceeds 8");
}

void TestCheckedMath::products()
{
    QFETCH(qint64, a);
    QFETCH(qint64, b);
    QFETCH(qint64, limit);
    QFETCH(qint64, expected);
    QFETCH(QString, message);
    if (expected >= 0) {
        QCOMPARE(qint64(checkedProduct({ { "tp", a }, { "dp", b } }, "plan.json", limit)), expected);
        QVERIFY(productWithin({ { "tp", a }, { "dp", b } }, limit).has_value());
        return;
    }
    QVERIFY(!productWithin({ { "tp", a }, { "dp", b } }, limit).has_value());
    try {
        checkedProduct({ { "tp", a }, { "dp", b } }, "plan.json", limit);
        QFAIL("no error");
    } catch (const InputError& error) {
        const QString text = QString::fromStdString(error.what());
        QVERIFY2(text.startsWith(QStringLiteral("plan.json: tp x dp: ")), qPrintable(text));
        QVERIFY2(text.contains(message), qPrintable(text));
    }
}

void TestCheckedMath::sums_data()
{
    QTest::addColumn<qint64>("a");
    QTest::addColumn<qint64>("b");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("expected"); // -1: an error

    const qint64 int64Max = std::numeric_limits<std::int64_t>::max();
    QTest::newRow("ordinary") << qint64(3) << qint64(4) << int64Max << qint64(7);
    QTest::newRow("int range passes 64 bits") << qint64(2147483647) << qint64(2147483647) << int64Max
                                              << qint64(4294967294LL);
    QTest::newRow("over an int limit") << qint64(2147483647) << qint64(2147483647)
                                       << qint64(std::numeric_limits<int>::max()) << qint64(-1);
    QTest::newRow("overflows 64 bits") << int64Max << qint64(1) << int64Max << qint64(-1);
    QTest::newRow("negative") << qint64(-1) << qint64(4) << int64Max << qint64(-1);
}

void TestCheckedMath::sums()
{
    QFETCH(qint64, a);
    QFETCH(qint64, b);
    QFETCH(qint64, limit);
    QFETCH(qint64, expected);
    if (expected >= 0) {
        QCOMPARE(qint64(checkedSum({ { "first_stage_layers", a }, { "last_stage_layers", b } }, "p.json", limit)),
            expected);
        return;
    }
    try {
        checkedSum({ { "first_stage_layers", a }, { "last_stage_layers", b } }, "p.json", limit);
        QFAIL("no error");
    } catch (const InputError& error) {
        const QString text = QString::fromStdString(error.what());
        QVERIFY2(text.startsWith(QStringLiteral("p.json: first_stage_layers + last_stage_layers: ")),
            qPrintable(text));
    }
}

QTEST_APPLESS_MAIN(TestCheckedMath)
#include "tst_checked_math.moc"
