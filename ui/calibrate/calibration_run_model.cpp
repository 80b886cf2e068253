// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/calibrate/calibration_run_model.h"

#include <cmath>

#include <QFileInfo>
#include <QLocale>

namespace stratex::ui {

int CalibrationRunModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_outcome ? 0 : int(m_outcome->calibration.result.before.size());
}

int CalibrationRunModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void CalibrationRunModel::setOutcome(std::shared_ptr<const controllers::CalibrationOutcome> outcome)
{
    beginResetModel();
    m_outcome = std::move(outcome);
    endResetModel();
}

QVariant CalibrationRunModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_outcome || index.row() >= rowCount())
        return {};
    const std::size_t row = std::size_t(index.row());
    const runs::ClusterCalibration& c = m_outcome->calibration;
    const runs::RunError& before = c.result.before[row];
    const runs::RunError& after = c.result.after[row];
    const runs::RunError* leftOut = c.hasLeftOut() ? &c.left_out[row] : nullptr;
    const runs::ReferenceRun* run = row < m_outcome->runs.size() ? &m_outcome->runs[row] : nullptr;
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return int((column == RunColumn || column == SourceColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (column == LeftOutColumn && leftOut)
            return tr("Held out: predicted by a fit on the other runs, throughput error %1 %")
                .arg(QLocale::c().toString(leftOut->throughput_error * 100, 'f', 1));
        if (run)
            return tr("%1\nmeasured from %2")
                .arg(QString::fromStdString(run->file.string()), QString::fromStdString(run->measured_from));
        return {};
    }
    const bool raw = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !raw)
        return {};
    const QLocale l = QLocale::c();
    const auto seconds = [&](double s) { return raw ? QVariant(s) : QVariant(l.toString(s, 'f', 3)); };
    const auto percent = [&](double e) {
        return raw ? QVariant(std::abs(e))
                   : QVariant(l.toString(e * 100, 'f', 1).prepend(e >= 0 ? QStringLiteral("+") : QString()));
    };
    switch (column) {
    case RunColumn:
        return QString::fromStdString(before.id);
    case MeasuredColumn:
        return seconds(before.measured_iteration_s);
    case PredictedBeforeColumn:
        return seconds(before.predicted_iteration_s);
    case PredictedAfterColumn:
        return seconds(after.predicted_iteration_s);
    case ErrorBeforeColumn:
        return percent(before.throughput_error);
    case ErrorAfterColumn:
        return percent(after.throughput_error);
    case LeftOutColumn:
        if (!leftOut)
            return raw ? QVariant(0.0) : QVariant(QStringLiteral("–"));
        return percent(leftOut->throughput_error);
    case SourceColumn:
        return run ? QFileInfo(QString::fromStdString(run->file.string())).fileName() : QString();
    default:
        return {};
    }
}

QVariant CalibrationRunModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ErrorBeforeColumn:
        case ErrorAfterColumn:
            return tr("Predicted over measured throughput, minus 1: above 0 the model promises more than the run "
                      "achieved");
        case LeftOutColumn:
            return tr("With 3 runs or more, each run predicted by a fit on the others: how well the calibrated "
                      "cluster predicts a run it has not seen");
        default:
            return {};
        }
    }
    switch (section) {
    case RunColumn:
        return tr("Run");
    case MeasuredColumn:
        return tr("Measured\n(s)");
    case PredictedBeforeColumn:
        return tr("Predicted\nbefore (s)");
    case PredictedAfterColumn:
        return tr("Predicted\nafter (s)");
    case ErrorBeforeColumn:
        return tr("Error\nbefore (%)");
    case ErrorAfterColumn:
        return tr("Error\nafter (%)");
    case LeftOutColumn:
        return tr("Held out\n(%)");
    case SourceColumn:
        return tr("File");
    default:
        return {};
    }
}

} // namespace stratex::ui
