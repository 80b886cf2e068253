// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include <QDialog>

#include "core/profile/synth/synthesis_settings.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace stratex::ui {

class SettingsForm;

// Estimates a Galvatron profile set from a model preset and a cluster (what
// `stratex-cli profile synth` does, its fields generated from the same settings table) and
// writes it to a folder the search can open.
class SynthesizeDialog : public QDialog {
    Q_OBJECT
public:
    explicit SynthesizeDialog(QWidget* parent = nullptr);

    QComboBox* modelBox() const;
    QComboBox* gpuBox() const;
    QSpinBox* nodesBox() const;
    QSpinBox* seqBox() const;
    QLineEdit* folderEdit() const { return m_folder; }
    // A cluster file (what Calibrate or `stratex-cli calibrate` writes): its GPU figures and
    // calibrated efficiencies go into the set, and its shape into the form, as `profile synth
    // --cluster` does. False with `error` when the file cannot be read; an empty path clears it.
    bool setClusterFile(const QString& path, QString* error);
    QLineEdit* clusterFileEdit() const { return m_clusterFile; }
    profile::synth::SynthesisSettings settings() const;

    // Writes the set; false with `error` when the description is invalid or the folder cannot be
    // written. On success folder() is where the files are.
    bool synthesize(QString* error);
    QString folder() const;

    void accept() override;

private:
    void updateSummary();
    QString defaultFolder() const;

    SettingsForm* m_form;
    QLineEdit* m_folder;
    QLineEdit* m_clusterFile;
    QLabel* m_summary;
    // The cluster file's description; it holds while the form keeps its GPU.
    std::optional<hardware::ClusterDescription> m_cluster;
    bool m_folderEdited = false;
};

} // namespace stratex::ui
