// SPDX-License-Identifier: GPL-3.0-or-later
// The settings table: values parsed, range-checked and formatted the same for every front end,
// help texts with the struct's defaults, JSON round trips and errors naming file and key.
#include <QTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/profile/synth/synthesis_settings.h"
#include "core/galvatron/search_setting_table.h"
#include "core/settings/setting_table.h"

using namespace stratex;
using namespace stratex::settings;

namespace {

SettingSpec spec(SettingKind kind, double minimum = 0, double maximum = 0)
{
    SettingSpec s;
    s.flag = "demo";
    s.kind = kind;
    s.minimum = minimum;
    s.maximum = maximum;
    s.choices = { "bf16", "fp16" };
    return s;
}

} // namespace

class TestSettingTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesValues_data();
    void parsesValues();
    void rejectsValues_data();
    void rejectsValues();
    void helpShowsTheStructDefault_data();
    void helpShowsTheStructDefault();
    void searchTableRoundTripsThroughJson_data();
    void searchTableRoundTripsThroughJson();
    void searchTableDefaultsAreGalvatrons();
    void synthesisTableRoundTripsThroughJson_data();
    void synthesisTableRoundTripsThroughJson();
    void jsonErrorsNameTheKey_data();
    void jsonErrorsNameTheKey();
    void everySearchSettingHasHelpAndAGroup();
};

void TestSettingTable::parsesValues_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("formatted");
    QTest::newRow("integer") << int(SettingKind::Integer) << "42"
                             << "42";
    QTest::newRow("negative integer") << int(SettingKind::Integer) << "-1"
                                      << "-1";
    QTest::newRow("real") << int(SettingKind::Real) << "0.25"
                          << "0.25";
    QTest::newRow("real as integer text") << int(SettingKind::Real) << "3"
                                          << "3";
    QTest::newRow("switch on") << int(SettingKind::Switch) << "1"
                               << "1";
    QTest::newRow("switch off") << int(SettingKind::Switch) << "0"
                                << "0";
    QTest::newRow("choice") << int(SettingKind::Choice) << "fp16"
                            << "fp16";
    QTest::newRow("text") << int(SettingKind::Text) << "llama2-7b"
                          << "llama2-7b";
}

void TestSettingTable::parsesValues()
{
    QFETCH(int, kind);
    QFETCH(QString, text);
    QFETCH(QString, formatted);
    const SettingSpec s = spec(SettingKind(kind), -1, 100);
    const SettingValue value = parseSettingValue(s, text.toStdString());
    QCOMPARE(QString::fromStdString(formatSettingValue(s, value)), formatted);
    QVERIFY(settingValueProblem(s, value).empty());
}

void TestSettingTable::rejectsValues_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not a number") << int(SettingKind::Integer) << "lots"
                                  << "--demo: expected an integer from 1 to 8, found \"lots\"";
    QTest::newRow("below range") << int(SettingKind::Integer) << "0"
                                 << "from 1 to 8, found \"0\"";
    QTest::newRow("above range") << int(SettingKind::Integer) << "9"
                                 << "found \"9\"";
    QTest::newRow("trailing text") << int(SettingKind::Integer) << "4x"
                                   << "found \"4x\"";
    QTest::newRow("fraction for integer") << int(SettingKind::Integer) << "2.5"
                                          << "found \"2.5\"";
    QTest::newRow("empty") << int(SettingKind::Integer) << ""
                           << "found \"\"";
    QTest::newRow("huge") << int(SettingKind::Integer) << "99999999999999999999"
                          << "found";
    QTest::newRow("real out of range") << int(SettingKind::Real) << "8.5"
                                       << "a number from 1 to 8";
    QTest::newRow("real nan") << int(SettingKind::Real) << "nan"
                              << "found \"nan\"";
    QTest::newRow("real inf") << int(SettingKind::Real) << "inf"
                              << "found \"inf\"";
    QTest::newRow("switch") << int(SettingKind::Switch) << "yes"
                            << "expected 0 or 1, found \"yes\"";
    QTest::newRow("choice") << int(SettingKind::Choice) << "fp8"
                            << "expected one of bf16, fp16, found \"fp8\"";
}

void TestSettingTable::rejectsValues()
{
    QFETCH(int, kind);
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        parseSettingValue(spec(SettingKind(kind), 1, 8), text.toStdString());
        QFAIL("accepted");
    } catch (const Error& error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
    }
}

void TestSettingTable::helpShowsTheStructDefault_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("help");
    QTest::newRow("integer") << "max-tp-deg"
                             << "Largest tensor-parallel degree (default 8).";
    QTest::newRow("special value") << "settle-chunk"
                                   << "(default -1: every divisor).";
    QTest::newRow("choice") << "pipeline-type"
                            << "(default pipedream_flush).";
    QTest::newRow("switch") << "async-grad-reduce"
                            << "(default 1).";
    QTest::newRow("real with special") << "allocator-reserve"
                                       << "(default -1: Galvatron's rule).";
    QTest::newRow("default text") << "model-name"
                                  << "(default from the profile's file name).";
    QTest::newRow("flag has none") << "disable-tp"
                                   << "No Megatron tensor parallelism.";
}

void TestSettingTable::helpShowsTheStructDefault()
{
    QFETCH(QString, flag);
    QFETCH(QString, help);
    const std::string text = galvatron::searchSettingTable().help(flag.toStdString());
    QVERIFY2(QString::fromStdString(text).endsWith(help), text.c_str());
}

void TestSettingTable::searchTableRoundTripsThroughJson_data()
{
    QTest::addColumn<QString>("flag");
    for (const auto& row : galvatron::searchSettingTable().rows())
        QTest::newRow(std::string(row.spec.flag).c_str()) << QString::fromUtf8(row.spec.flag.data());
}

// Every row: a value other than the default survives settings -> JSON -> settings, and no
// other setting changes on the way.
void TestSettingTable::searchTableRoundTripsThroughJson()
{
    QFETCH(QString, flag);
    const auto& table = galvatron::searchSettingTable();
    const auto& row = table.at(flag.toStdString());
    galvatron::SearchSettings changed;
    const SettingValue original = row.get(changed);
    SettingValue other;
    switch (row.spec.kind) {
    case SettingKind::Integer:
        other = std::int64_t(row.spec.maximum);
        break;
    case SettingKind::Real:
        other = row.spec.maximum;
        break;
    case SettingKind::Flag:
    case SettingKind::Switch:
        other = !std::get<bool>(original);
        break;
    case SettingKind::Choice:
        other = std::string(row.spec.choices.back() == std::get<std::string>(original) ? row.spec.choices.front()
                                                                                       : row.spec.choices.back());
        break;
    case SettingKind::Text:
        other = std::string("custom-model");
        break;
    }
    QVERIFY(other != original);
    QVERIFY(settingValueProblem(row.spec, other).empty());
    row.set(changed, other);
    QVERIFY(row.get(changed) == other);

    const nlohmann::ordered_json json = table.toJson(changed);
    const JsonDocument document = JsonDocument::parse(json.dump(), "settings.json");
    galvatron::SearchSettings restored;
    const SettingNames given = table.applyJson(restored, document.root());
    QCOMPARE(given.size(), table.rows().size());
    QVERIFY(row.get(restored) == other);
    QCOMPARE(QString::fromStdString(table.toJson(restored).dump()), QString::fromStdString(json.dump()));
    // Only this row differs from the defaults.
    for (const auto& each : table.rows()) {
        if (each.spec.flag != row.spec.flag)
            QVERIFY2(each.get(restored) == each.get(galvatron::SearchSettings {}), std::string(each.spec.flag).c_str());
    }
}

void TestSettingTable::synthesisTableRoundTripsThroughJson_data()
{
    QTest::addColumn<QString>("flag");
    for (const auto& row : profile::synth::synthesisSettingTable().rows())
        QTest::newRow(std::string(row.spec.flag).c_str()) << QString::fromUtf8(row.spec.flag.data());
}

// Every synthesis row: a new value survives settings -> JSON -> settings (a preset row loads
// its preset, so the whole struct is compared, not the one row).
void TestSettingTable::synthesisTableRoundTripsThroughJson()
{
    QFETCH(QString, flag);
    using profile::synth::SynthesisSettings;
    const auto& table = profile::synth::synthesisSettingTable();
    const auto& row = table.at(flag.toStdString());
    SynthesisSettings changed;
    const SettingValue original = row.get(changed);
    SettingValue other;
    if (row.spec.kind == SettingKind::Integer)
        other = std::int64_t(row.spec.minimum + 1);
    else if (row.spec.kind == SettingKind::Real)
        other = row.spec.maximum / 2;
    else if (row.spec.kind == SettingKind::Choice)
        other = std::string(row.spec.choices.back() == std::get<std::string>(original) ? row.spec.choices.front()
                                                                                       : row.spec.choices.back());
    else if (row.spec.kind == SettingKind::Switch || row.spec.kind == SettingKind::Flag)
        other = !std::get<bool>(original);
    else
        other = std::string("my-model");
    QVERIFY(other != original);
    row.set(changed, other);
    QVERIFY(row.get(changed) == other);
    const nlohmann::ordered_json json = table.toJson(changed);
    SynthesisSettings restored;
    table.applyJson(restored, JsonDocument::parse(json.dump(), "synthesis.json").root());
    QCOMPARE(QString::fromStdString(table.toJson(restored).dump()), QString::fromStdString(json.dump()));
}

// The defaults are those of Galvatron's search_dist.yaml (docs/galvatron-search.md §1.1).
void TestSettingTable::searchTableDefaultsAreGalvatrons()
{
    const nlohmann::ordered_json json = galvatron::searchSettingTable().toJson(galvatron::SearchSettings {});
    QCOMPARE(json.at("memory_constraint").get<int>(), 38);
    QCOMPARE(json.at("max_tp_deg").get<int>(), 8);
    QCOMPARE(json.at("settle_bsz").get<int>(), -1);
    QCOMPARE(json.at("bsz_scale").get<int>(), 8);
    QCOMPARE(json.at("pipeline_type").get<std::string>(), std::string("pipedream_flush"));
    QCOMPARE(json.at("default_dp_type").get<std::string>(), std::string("zero2"));
    QCOMPARE(json.at("time_profile_mode").get<std::string>(), std::string("sequence"));
    QCOMPARE(json.at("async_grad_reduce").get<bool>(), true);
    QCOMPARE(json.at("allocator_reserve").get<double>(), -1.0);
    QCOMPARE(json.at("seq_length").get<int>(), 8192);
}

void TestSettingTable::jsonErrorsNameTheKey_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("keyPath");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown key") << R"({"max_tp_deg": 4, "maximum_tp": 2})"
                                 << "/maximum_tp"
                                 << "a known setting key";
    QTest::newRow("wrong type") << R"({"max_tp_deg": "four"})"
                                << "/max_tp_deg"
                                << "integer";
    QTest::newRow("out of range") << R"({"max_tp_deg": 0})"
                                  << "/max_tp_deg"
                                  << "an integer from 1 to 1024";
    QTest::newRow("bad choice") << R"({"pipeline_type": "1f1b"})"
                                << "/pipeline_type"
                                << "one of pipedream_flush";
    QTest::newRow("not an object") << R"([1, 2])"
                                   << "/"
                                   << "object";
}

void TestSettingTable::jsonErrorsNameTheKey()
{
    QFETCH(QString, json);
    QFETCH(QString, keyPath);
    QFETCH(QString, expected);
    const JsonDocument document = JsonDocument::parse(json.toStdString(), "search-settings.json");
    galvatron::SearchSettings settings;
    try {
        galvatron::searchSettingTable().applyJson(settings, document.root());
        QFAIL("accepted");
    } catch (const InputError& error) {
        QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("search-settings.json"));
        QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
        QVERIFY2(QString::fromStdString(error.expected()).contains(expected), error.what());
    }
}

void TestSettingTable::everySearchSettingHasHelpAndAGroup()
{
    for (const auto& row : galvatron::searchSettingTable().rows()) {
        QVERIFY2(!row.spec.help.empty() && !row.spec.group.empty() && !row.spec.label.empty(),
            std::string(row.spec.flag).c_str());
        QVERIFY2(settingValueProblem(row.spec, row.get(galvatron::SearchSettings {})).empty() || !row.spec.openText.empty()
                || !row.spec.specialText.empty(),
            std::string(row.spec.flag).c_str());
    }
}

QTEST_APPLESS_MAIN(TestSettingTable)
#include "tst_setting_table.moc"
