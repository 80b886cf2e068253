// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "controllers/calibration_controller.h"

namespace stratex::ui {

// A calibration's runs as a table: measured iteration time, predicted before and after the fit, the
// throughput errors before and after and, with 3 runs or more, the error of each run when it was
// left out of the fit (how well the calibrated cluster predicts a run it has not seen).
// Qt::UserRole gives raw numbers for sorting.
class CalibrationRunModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RunColumn,
        MeasuredColumn,
        PredictedBeforeColumn,
        PredictedAfterColumn,
        ErrorBeforeColumn,
        ErrorAfterColumn,
        LeftOutColumn,
        SourceColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setOutcome(std::shared_ptr<const controllers::CalibrationOutcome> outcome);

private:
    std::shared_ptr<const controllers::CalibrationOutcome> m_outcome;
};

} // namespace stratex::ui
