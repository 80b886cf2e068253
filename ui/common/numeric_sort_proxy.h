// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

namespace stratex::ui {

// Sorts on the raw numbers of Qt::UserRole, so "10.5" follows "9.8"; strings compare as text.
// Rows whose values are equal keep the source model's order in either direction: a plan table's
// source order is the search's ranking, and two plans tied on the sorted column are listed rank
// first. (QSortFilterProxyModel sorts stably from the rows' current order, so without the rule a
// tie would follow whatever sort came before: a QTableView enabling sorting first sorts by its
// header's default indicator, column 0 descending, and tied plans came out in reverse rank.)
class NumericSortProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override
    {
        const QVariant a = left.data(Qt::UserRole);
        const QVariant b = right.data(Qt::UserRole);
        if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString) {
            const int order = a.toString().compare(b.toString());
            if (order != 0)
                return order < 0;
        } else if (a.toDouble() != b.toDouble()) {
            return a.toDouble() < b.toDouble();
        }
        return sortOrder() == Qt::AscendingOrder ? left.row() < right.row() : left.row() > right.row();
    }
};

} // namespace stratex::ui
