// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

namespace stratex::ui {

// Sorts on the raw numbers of Qt::UserRole, so "10.5" follows "9.8"; strings compare as text.
class NumericSortProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override
    {
        const QVariant a = left.data(Qt::UserRole);
        const QVariant b = right.data(Qt::UserRole);
        if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString)
            return a.toString() < b.toString();
        return a.toDouble() < b.toDouble();
    }
};

} // namespace stratex::ui
