// SPDX-License-Identifier: GPL-3.0-or-later
// The plan tables' sort proxy: numbers sort as numbers, text as text, and rows equal on the sorted
// column keep the source model's order (a plan table's ranking) in both directions.
#include <QStandardItemModel>
#include <QTest>

#include "ui/common/numeric_sort_proxy.h"

using stratex::ui::NumericSortProxy;

class TestNumericSortProxy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sortsKeepingSourceOrderOnTies_data();
    void sortsKeepingSourceOrderOnTies();
};

void TestNumericSortProxy::sortsKeepingSourceOrderOnTies_data()
{
    QTest::addColumn<QVariantList>("values"); // Qt::UserRole of source rows 0, 1, ...
    QTest::addColumn<int>("order"); // Qt::SortOrder
    QTest::addColumn<QList<int>>("expected"); // source rows, top to bottom

    // The bundled example's Search page: plans ranked 7 and 8 tie at 7.514 samples/s and were
    // listed 8, 7 under the default sort (throughput, descending).
    const QVariantList tied { 8.246, 7.648, 7.514, 7.514, 7.49 };
    QTest::newRow("tie, descending") << tied << int(Qt::DescendingOrder) << QList<int> { 0, 1, 2, 3, 4 };
    QTest::newRow("tie, ascending") << tied << int(Qt::AscendingOrder) << QList<int> { 4, 2, 3, 1, 0 };
    const QVariantList threeEqual { 1.0, 1.0, 1.0 };
    QTest::newRow("all equal, descending") << threeEqual << int(Qt::DescendingOrder) << QList<int> { 0, 1, 2 };
    QTest::newRow("all equal, ascending") << threeEqual << int(Qt::AscendingOrder) << QList<int> { 0, 1, 2 };
    // Numbers as numbers, not as text ("10.5" after "9.8").
    QTest::newRow("numeric") << QVariantList { 10.5, 9.8, 100.0 } << int(Qt::AscendingOrder) << QList<int> { 1, 0, 2 };
    QTest::newRow("text, tie descending") << QVariantList { QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("b") }
                                          << int(Qt::DescendingOrder) << QList<int> { 0, 2, 1 };
}

void TestNumericSortProxy::sortsKeepingSourceOrderOnTies()
{
    QFETCH(QVariantList, values);
    QFETCH(int, order);
    QFETCH(QList<int>, expected);
    QStandardItemModel source(int(values.size()), 2);
    for (int row = 0; row < values.size(); ++row) {
        source.setData(source.index(row, 0), values[row], Qt::UserRole);
        source.setData(source.index(row, 1), row, Qt::UserRole); // the rank column
    }
    NumericSortProxy proxy;
    proxy.setSourceModel(&source);
    // Sorted first by the rank column, descending, as a QTableView's header does when sorting is
    // enabled (its default indicator): the result must not depend on the rows' order before.
    proxy.sort(1, Qt::DescendingOrder);
    proxy.sort(0, Qt::SortOrder(order));
    QList<int> rows;
    for (int row = 0; row < proxy.rowCount(); ++row)
        rows << proxy.mapToSource(proxy.index(row, 0)).row();
    QCOMPARE(rows, expected);
}

QTEST_GUILESS_MAIN(TestNumericSortProxy)
#include "tst_numeric_sort_proxy.moc"
