// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include "core/ranks/parallel_config.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace stratex::ui {

// The parallel layout as a form: world, tp, pp, cp, ep, expert tp, order, GPUs per node. Emits
// configChanged() on every edit; the page validates with Megatron's rules (on a worker thread)
// and reports back through setValidation().
class ParallelConfigForm : public QWidget {
    Q_OBJECT
public:
    explicit ParallelConfigForm(QWidget* parent = nullptr);

    ranks::ParallelConfig config() const;
    void setConfig(const ranks::ParallelConfig& config);

    // Empty error: valid, `derived` describes DP / expert-DP / nodes. Otherwise the one-line reason.
    void setValidation(const QString& error, const QString& derived);
    QString validationText() const;
    bool isValid() const { return m_valid; }

    QSpinBox* worldBox() const { return m_world; }
    QSpinBox* tpBox() const { return m_tp; }
    QSpinBox* ppBox() const { return m_pp; }
    QComboBox* orderBox() const { return m_order; }

Q_SIGNALS:
    void configChanged();

private:
    QSpinBox* m_world;
    QSpinBox* m_tp;
    QSpinBox* m_pp;
    QSpinBox* m_cp;
    QSpinBox* m_ep;
    QSpinBox* m_etp;
    QComboBox* m_order;
    QSpinBox* m_gpusPerNode;
    QLabel* m_status;
    bool m_valid = true;
    bool m_updating = false;
};

} // namespace stratex::ui
