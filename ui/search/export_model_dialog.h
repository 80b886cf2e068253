// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

#include "core/export/plan_export.h"
#include "core/galvatron/search_settings.h"

class QComboBox;
class QLabel;

namespace stratex::ui {

class SettingsForm;

// The model's architecture and the GPU for the exports of a plan searched on measured Galvatron
// profiles, which say neither: a model preset with the architecture flags of `stratex-cli export`
// (galvatron::modelSettingTable: --ffn-hidden-size, --num-kv-heads, --mlp, ...) and a GPU preset,
// generated from the same settings rows. The searched shape (layers, hidden size, heads, vocabulary,
// sequence length) stays the search's. Until the user confirms it (OK), the exports that need a
// model refuse as before.
class ExportModelDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportModelDialog(QWidget* parent = nullptr);

    SettingsForm* form() const { return m_form; }
    QComboBox* modelBox() const;
    QComboBox* gpuBox() const;
    void setReason(const QString& text);

    bool confirmed() const { return m_confirmed; }
    // The model (the searched shape with the form's architecture) and the cluster (the form's GPU on
    // the searched nodes) for plans searched with `settings`; nothing before confirmation. Throws
    // stratex::Error when the fields do not make a valid transformer.
    exporting::ExportContext context(const galvatron::SearchSettings& settings) const;

    void accept() override;

private:
    SettingsForm* m_form;
    QLabel* m_reason;
    bool m_confirmed = false;
};

} // namespace stratex::ui
