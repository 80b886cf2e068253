// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include <QDialog>

#include "core/profile/synth/synthesis_settings.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QSpinBox;

namespace stratex::ui {

class SettingsForm;

// Estimates a Galvatron profile set from a model and a cluster (what `stratex-cli profile synth`
// does, its fields generated from the same settings table) and writes it to a folder the search
// can open. The model is a preset, a Hugging Face config.json ("From config.json…", as
// `--hf-config`) or a custom shape: every field of the model the estimate uses is shown and
// editable (layers, hidden, heads, KV heads, MLP, vocabulary, sequence, experts and top-k), the
// facts without a field (RoPE, MLA, the router) are listed under the form. The dialog remembers
// its last accepted choice (QSettings group "synthesize").
class SynthesizeDialog : public QDialog {
    Q_OBJECT
public:
    explicit SynthesizeDialog(QWidget* parent = nullptr);

    // The presets, then "custom: NAME" for a model read from a config.json or remembered.
    QComboBox* modelBox() const { return m_model; }
    QComboBox* gpuBox() const;
    QSpinBox* nodesBox() const;
    QSpinBox* seqBox() const;
    SettingsForm* form() const { return m_form; }
    QSpinBox* expertsBox() const { return m_experts; } // 0: a dense model
    QSpinBox* topKBox() const { return m_topK; }
    QSpinBox* expertFfnBox() const { return m_expertFfn; }
    QPushButton* fromConfigButton() const { return m_fromConfig; }
    QLineEdit* folderEdit() const { return m_folder; }
    // What the model comes from: "the preset NAME", "config.json PATH", or either with
    // ", edited" once a field differs from it.
    QString modelSource() const;
    // Reads a Hugging Face config.json (core/model/hf_config.h) as the model and selects it;
    // false with `error` (naming the file and key) when it cannot be read.
    bool loadHfConfig(const QString& path, QString* error);
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
    void selectModel(int index);
    void showModel(const model::ModelDescription& model);
    void setCustomModel(const model::ModelDescription& model, const QString& source);
    void saveChoice(QSettings& settings) const;
    void restoreChoice(QSettings& settings);
    void updateSummary();
    QString defaultFolder() const;

    SettingsForm* m_form;
    QComboBox* m_model;
    QPushButton* m_fromConfig;
    QSpinBox* m_experts;
    QSpinBox* m_topK;
    QSpinBox* m_expertFfn;
    QLineEdit* m_folder;
    QLineEdit* m_clusterFile;
    QLabel* m_summary;
    QLabel* m_facts;
    // The model the fields started from: the selected preset, or the custom one.
    model::ModelDescription m_base;
    std::optional<model::ModelDescription> m_custom;
    QString m_customSource; // "config.json PATH" or "the last choice"
    std::vector<std::string> m_notes; // the config.json reader's, for the custom model
    // The cluster file's description; it holds while the form keeps its GPU.
    std::optional<hardware::ClusterDescription> m_cluster;
    bool m_folderEdited = false;
    bool m_showing = false; // fields being written from a model, not edited
};

} // namespace stratex::ui
