// SPDX-License-Identifier: GPL-3.0-or-later
// Every search setting, through every front end that reads the settings table: command line ->
// settings -> JSON -> settings -> Search form -> settings, the value unchanged at each step, and
// each field carrying its row's name, range and help.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

#include "app/cli/setting_options.h"
#include "core/common/json_reader.h"
#include "core/galvatron/search_setting_table.h"
#include "ui/search/search_settings_form.h"

using namespace stratex;
using namespace stratex::settings;

namespace {

// A valid value other than the default, as the command line spells it.
QString otherValueText(const SettingSpec& spec, const SettingValue& fallback)
{
    switch (spec.kind) {
    case SettingKind::Integer:
        return QString::number(std::int64_t(spec.maximum));
    case SettingKind::Real:
        return QStringLiteral("0.125");
    case SettingKind::Flag:
        return {};
    case SettingKind::Switch:
        return std::get<bool>(fallback) ? QStringLiteral("0") : QStringLiteral("1");
    case SettingKind::Choice:
        return QString::fromUtf8(
            spec.choices.back() == std::get<std::string>(fallback) ? spec.choices.front() : spec.choices.back());
    case SettingKind::Text:
        return QStringLiteral("custom-model");
    }
    return {};
}

} // namespace

class TestSettingsRoundTrip : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyFlagRoundTrips_data();
    void everyFlagRoundTrips();
    void formFieldsFollowTheTable();
};

void TestSettingsRoundTrip::everyFlagRoundTrips_data()
{
    QTest::addColumn<QString>("flag");
    for (const auto& row : galvatron::searchSettingTable().rows())
        QTest::newRow(std::string(row.spec.flag).c_str()) << QString::fromUtf8(row.spec.flag.data());
}

void TestSettingsRoundTrip::everyFlagRoundTrips()
{
    QFETCH(QString, flag);
    const auto& table = galvatron::searchSettingTable();
    const auto& row = table.at(flag.toStdString());
    const galvatron::SearchSettings defaults;
    const QString text = otherValueText(row.spec, row.get(defaults));

    // Command line -> settings.
    cli::CliParser parser(QStringLiteral("search"), {});
    cli::addSettingOptions(parser, table);
    QStringList args { QStringLiteral("--") + flag };
    if (row.spec.hasValue())
        args << text;
    parser.parse(args);
    galvatron::SearchSettings fromCli;
    const SettingNames given = cli::readSettingOptions(parser, table, fromCli);
    QCOMPARE(given, SettingNames { flag.toStdString() });
    const SettingValue expected = row.get(fromCli);
    QVERIFY2(expected != row.get(defaults), "the command line did not change the setting");
    if (row.spec.hasValue())
        QCOMPARE(QString::fromStdString(formatSettingValue(row.spec, expected)), text);

    // Settings -> JSON -> settings.
    const JsonDocument document = JsonDocument::parse(table.toJson(fromCli).dump(), "settings.json");
    galvatron::SearchSettings fromJson;
    table.applyJson(fromJson, document.root());
    QVERIFY(row.get(fromJson) == expected);

    // Settings -> form -> settings.
    ui::SearchSettingsForm form;
    form.setSettings(fromJson);
    const galvatron::SearchSettings fromForm = form.settings();
    QVERIFY2(row.get(fromForm) == expected,
        qPrintable(QString::fromStdString(formatSettingValue(row.spec, row.get(fromForm)))));
    QCOMPARE(
        QString::fromStdString(table.toJson(fromForm).dump()), QString::fromStdString(table.toJson(fromCli).dump()));
    QVERIFY(form.given().contains(flag.toStdString()));
}

void TestSettingsRoundTrip::formFieldsFollowTheTable()
{
    ui::SearchSettingsForm form;
    for (const auto& row : galvatron::searchSettingTable().rows()) {
        QWidget* field = form.field(row.spec.flag);
        QVERIFY2(field, std::string(row.spec.flag).c_str());
        QCOMPARE(field->objectName(), QString::fromUtf8(row.spec.flag.data()));
        QVERIFY(field->toolTip().contains(QStringLiteral("--") + QString::fromUtf8(row.spec.flag.data())));
        if (auto* spin = qobject_cast<QSpinBox*>(field)) {
            QCOMPARE(spin->maximum(), int(row.spec.maximum));
            QVERIFY(spin->minimum() <= int(row.spec.minimum));
        }
        if (auto* combo = qobject_cast<QComboBox*>(field))
            QCOMPARE(combo->count(), int(row.spec.choices.size()));
    }
    // Fields the profiles fill in start open, the rest at the table's defaults.
    QVERIFY(!form.given().contains("seq-length"));
    QVERIFY(!form.given().contains("model-name"));
    QVERIFY(form.given().contains("memory-constraint"));
    QCOMPARE(form.spinBox("memory-constraint")->value(), galvatron::SearchSettings {}.memory_constraint_gb);
}

QTEST_MAIN(TestSettingsRoundTrip)
#include "tst_settings_roundtrip.moc"
