// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the Search page suites share: typing into a spin box, the Galvatron baseline's expected
// answers, and the form set up for the first baseline.

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

#include "ui/common/settings_form.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"

#include "support/test_paths.h"

namespace stratex::test {

inline void typeInto(QSpinBox* box, const QString& text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClick(box, Qt::Key_Backspace);
    QTest::keyClicks(box, text);
}

inline QJsonObject baselineCase(int index)
{
    QFile file(stratex::test::fixture(QStringLiteral("galvatron-baseline/expected_main.json")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QStringLiteral("cases"))
        .toArray()
        .at(index)
        .toObject();
}

// The first baseline: 1 x 8 GPUs, 36 GB, global batch 16, batch time mode.
inline void setUpSearchBaseline(ui::SearchPage* page)
{
    ui::SearchSettingsForm* form = page->form();
    form->findChild<QLineEdit*>(QStringLiteral("profilesDir"))
        ->setText(stratex::test::fixture(QStringLiteral("galvatron")));
    // The fixture folder holds several models: name the one to search.
    QTest::keyClicks(form->findChild<QLineEdit*>(QStringLiteral("model-name")), QStringLiteral("llama2-7b"));
    typeInto(form->spinBox("memory-constraint"), QStringLiteral("36"));
    typeInto(form->spinBox("settle-bsz"), QStringLiteral("16"));
    form->comboBox("time-profile-mode")->setCurrentText(QStringLiteral("batch"));
}

} // namespace stratex::test
