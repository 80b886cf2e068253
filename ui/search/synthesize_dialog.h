// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace stratex::ui {

// Estimates a Galvatron profile set from a model preset and a cluster (what
// `stratex-cli profile synth` does) and writes it to a folder the search can open.
class SynthesizeDialog : public QDialog {
    Q_OBJECT
public:
    explicit SynthesizeDialog(QWidget* parent = nullptr);

    QComboBox* modelBox() const { return m_model; }
    QComboBox* gpuBox() const { return m_gpu; }
    QSpinBox* nodesBox() const { return m_nodes; }
    QSpinBox* seqBox() const { return m_seq; }
    QLineEdit* folderEdit() const { return m_folder; }

    // Writes the set; false with `error` when the description is invalid or the folder cannot be
    // written. On success folder() is where the files are.
    bool synthesize(QString* error);
    QString folder() const;

    void accept() override;

private:
    void updateSummary();
    QString defaultFolder() const;

    QComboBox* m_model;
    QComboBox* m_gpu;
    QSpinBox* m_nodes;
    QComboBox* m_gpusPerNode;
    QSpinBox* m_seq;
    QComboBox* m_precision;
    QLineEdit* m_folder;
    QLabel* m_summary;
    bool m_folderEdited = false;
};

} // namespace stratex::ui
