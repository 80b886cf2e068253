// SPDX-License-Identifier: GPL-3.0-or-later
// The planner settings table: each row reads and writes its own PlannerConfig field, through
// JSON (toJson -> applyJson) and through the command line (addSettingOptions ->
// readSettingOptions, as `plan` and `plan-compare` read them); bad and missing values are usage
// errors naming the flag; the help tells required settings and the mode's default.
#include <map>

#include <QTest>

#include "app/cli/cli_command.h"
#include "app/cli/cli_parser.h"
#include "app/cli/setting_options.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/planner/planner_setting_table.h"

using namespace stratex;
using namespace stratex::planner;

namespace {

// The fields the table covers, read by hand (not through the table) so a row bound to the
// wrong member shows.
using Fields = std::map<std::string, std::string>;

Fields fieldsOf(const PlannerConfig& config)
{
    return { { "tp", std::to_string(config.tp) }, { "num_stages", std::to_string(config.num_stages) },
        { "layers_per_stage", std::to_string(config.layers_per_stage) }, { "dp_size", std::to_string(config.dp_size) },
        { "chunks_per_device", std::to_string(config.chunks_per_device) },
        { "device_memory_mb", QByteArray::number(config.device_memory_mb, 'g', 17).toStdString() },
        { "mode", std::string(plannerModeName(config.mode)) }, { "seed", std::to_string(config.seed) },
        { "hidden_size", std::to_string(config.hidden_size) },
        { "gpus_per_node", std::to_string(config.gpus_per_node) },
        { "intra_node_bw_gbps", QByteArray::number(config.comm.intra_node_bw_gbps, 'g', 17).toStdString() },
        { "inter_node_bw_gbps", QByteArray::number(config.comm.inter_node_bw_gbps, 'g', 17).toStdString() },
        { "intra_node_lat_us", QByteArray::number(config.comm.intra_node_lat_us, 'g', 17).toStdString() },
        { "inter_node_lat_us", QByteArray::number(config.comm.inter_node_lat_us, 'g', 17).toStdString() } };
}

// The required settings at their smallest values, so a command line can leave the others out.
const QStringList kRequired { "--stages", "1", "--layers-per-stage", "1", "--memory-mb", "1" };

PlannerConfig requiredOnly()
{
    PlannerConfig config;
    config.num_stages = 1;
    config.layers_per_stage = 1;
    config.device_memory_mb = 1;
    return config;
}

// Parses `args` the way plan_options.cpp does; the usage error's message when it fails.
PlannerConfig parse(const QStringList& args, QString* usageError = nullptr)
{
    cli::CliParser parser(QStringLiteral("plan"), QStringLiteral("test"));
    cli::addSettingOptions(parser, plannerSettingTable());
    PlannerConfig config;
    try {
        parser.parse(args);
        cli::readSettingOptions(parser, plannerSettingTable(), config);
    } catch (const cli::UsageError& error) {
        if (usageError)
            *usageError = QString::fromUtf8(error.what());
    }
    return config;
}

PlannerConfig fromJson(const nlohmann::ordered_json& json, settings::SettingNames* given = nullptr)
{
    const JsonDocument document = JsonDocument::parse(json.dump(), "planner settings");
    PlannerConfig config;
    const settings::SettingNames names = plannerSettingTable().applyJson(config, document.root());
    if (given)
        *given = names;
    return config;
}

} // namespace

class TestPlannerSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void eachRowSetsItsField_data();
    void eachRowSetsItsField();
    void wholeConfigRoundTripsThroughJson();
    void badValuesAreUsageErrors_data();
    void badValuesAreUsageErrors();
    void badJsonNamesTheKey();
    void helpTellsRequiredAndDefaults();
};

void TestPlannerSettings::eachRowSetsItsField_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::newRow("tp") << "tp"
                        << "4"
                        << "tp"
                        << "4";
    QTest::newRow("stages") << "stages"
                            << "6"
                            << "num_stages"
                            << "6";
    QTest::newRow("layers-per-stage") << "layers-per-stage"
                                      << "3"
                                      << "layers_per_stage"
                                      << "3";
    QTest::newRow("dp") << "dp"
                        << "2"
                        << "dp_size"
                        << "2";
    QTest::newRow("chunks") << "chunks"
                            << "2"
                            << "chunks_per_device"
                            << "2";
    QTest::newRow("memory-mb") << "memory-mb"
                               << "36000.5"
                               << "device_memory_mb"
                               << "36000.5";
    QTest::newRow("mode-normal") << "mode"
                                 << "normal"
                                 << "mode"
                                 << "normal";
    QTest::newRow("mode-fast") << "mode"
                               << "fast"
                               << "mode"
                               << "fast";
    QTest::newRow("seed") << "seed"
                          << "7"
                          << "seed"
                          << "7";
    QTest::newRow("hidden-size") << "hidden-size"
                                 << "4096"
                                 << "hidden_size"
                                 << "4096";
    QTest::newRow("gpus-per-node") << "gpus-per-node"
                                   << "8"
                                   << "gpus_per_node"
                                   << "8";
    QTest::newRow("intra-node-gbps") << "intra-node-gbps"
                                     << "2400"
                                     << "intra_node_bw_gbps"
                                     << "2400";
    QTest::newRow("inter-node-gbps") << "inter-node-gbps"
                                     << "200.5"
                                     << "inter_node_bw_gbps"
                                     << "200.5";
    QTest::newRow("intra-node-latency-us") << "intra-node-latency-us"
                                           << "3"
                                           << "intra_node_lat_us"
                                           << "3";
    QTest::newRow("inter-node-latency-us") << "inter-node-latency-us"
                                           << "12.5"
                                           << "inter_node_lat_us"
                                           << "12.5";
}

void TestPlannerSettings::eachRowSetsItsField()
{
    QFETCH(QString, flag);
    QFETCH(QString, text);
    QFETCH(QString, field);
    QFETCH(QString, value);

    PlannerConfig expectedConfig = requiredOnly();
    Fields expected = fieldsOf(expectedConfig);
    QVERIFY(expected.contains(field.toStdString()));
    QVERIFY2(expected[field.toStdString()] != value.toStdString(), "the value must differ from the base");
    expected[field.toStdString()] = value.toStdString();

    // Command line: the flag (after the required ones, so it wins) sets its field and no other.
    QString error;
    const PlannerConfig parsed = parse(kRequired + QStringList { "--" + flag, text }, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(fieldsOf(parsed), expected);

    // JSON: the table writes the field under the flag's key and reads it back.
    const nlohmann::ordered_json json = plannerSettingTable().toJson(parsed);
    const std::string key = plannerSettingTable().at(flag.toStdString()).spec.jsonKey();
    QVERIFY2(json.contains(key), key.c_str());
    QCOMPARE(fieldsOf(fromJson(json)), expected);
    // Alone, the key sets only its field.
    nlohmann::ordered_json single;
    single[key] = json[key];
    Fields defaults = fieldsOf(PlannerConfig {});
    defaults[field.toStdString()] = value.toStdString();
    settings::SettingNames given;
    QCOMPARE(fieldsOf(fromJson(single, &given)), defaults);
    QCOMPARE(given, settings::SettingNames { flag.toStdString() });
}

void TestPlannerSettings::wholeConfigRoundTripsThroughJson()
{
    PlannerConfig config;
    config.tp = 2;
    config.num_stages = 8;
    config.layers_per_stage = 4;
    config.dp_size = 3;
    config.chunks_per_device = 2;
    config.placement = ChunkPlacement::V;
    config.device_memory_mb = 79000.25;
    config.mode = PlannerMode::Fast;
    config.seed = 123456;
    config.hidden_size = 5120;
    config.gpus_per_node = 8;
    config.comm.intra_node_bw_gbps = 2400;
    config.comm.inter_node_bw_gbps = 200;
    config.comm.intra_node_lat_us = 2;
    config.comm.inter_node_lat_us = 10.5;
    const nlohmann::ordered_json json = plannerSettingTable().toJson(config);
    QCOMPARE(json.size(), plannerSettingTable().rows().size());
    settings::SettingNames given;
    QCOMPARE(fieldsOf(fromJson(json, &given)), fieldsOf(config));
    QCOMPARE(given.size(), plannerSettingTable().rows().size());
    QCOMPARE(QString::fromStdString(json.dump()),
        QStringLiteral(
            R"({"tp":2,"stages":8,"layers_per_stage":4,"dp":3,"chunks":2,"placement":"v","memory_mb":79000.25,)"
            R"("mode":"fast","seed":123456,"hidden_size":5120,"gpus_per_node":8,"intra_node_gbps":2400.0,)"
            R"("inter_node_gbps":200.0,"intra_node_latency_us":2.0,"inter_node_latency_us":10.5})"));
}

void TestPlannerSettings::badValuesAreUsageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("zero-stages") << QStringList { "--stages", "0", "--layers-per-stage", "1", "--memory-mb", "1" }
                                 << R"(--stages: expected an integer from 1 to 1024, found "0")";
    QTest::newRow("text-layers") << QStringList { "--stages", "1", "--layers-per-stage", "x", "--memory-mb", "1" }
                                 << R"(--layers-per-stage: expected an integer from 1 to 1024, found "x")";
    QTest::newRow("zero-memory") << QStringList { "--stages", "1", "--layers-per-stage", "1", "--memory-mb", "0" }
                                 << R"(--memory-mb: expected a number from 1 to 1048576, found "0")";
    QTest::newRow("bad-mode") << kRequired + QStringList { "--mode", "quick" }
                              << R"(--mode: expected one of normal, fast, auto, found "quick")";
    QTest::newRow("negative-seed") << kRequired + QStringList { "--seed", "-1" }
                                   << R"(--seed: expected an integer from 0 to 2147483647, found "-1")";
    QTest::newRow("missing-stages") << QStringList { "--layers-per-stage", "1", "--memory-mb", "1" }
                                    << "--stages is required";
    QTest::newRow("missing-layers") << QStringList { "--stages", "1", "--memory-mb", "1" }
                                    << "--layers-per-stage is required";
    QTest::newRow("missing-memory") << QStringList { "--stages", "1", "--layers-per-stage", "1" }
                                    << "--memory-mb is required";
}

void TestPlannerSettings::badValuesAreUsageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QString error;
    parse(args, &error);
    QCOMPARE(error, message);
}

void TestPlannerSettings::badJsonNamesTheKey()
{
    PlannerConfig config;
    const JsonDocument document = JsonDocument::parse(R"({"stages": 0})", "settings.json");
    try {
        plannerSettingTable().applyJson(config, document.root());
        QFAIL("a stage count of 0 was accepted");
    } catch (const Error& error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains(QStringLiteral("settings.json")) && message.contains(QStringLiteral("/stages")),
            qPrintable(message));
    }
}

void TestPlannerSettings::helpTellsRequiredAndDefaults()
{
    const auto& table = plannerSettingTable();
    for (const char* flag : { "stages", "layers-per-stage", "memory-mb" }) {
        QVERIFY(table.at(flag).spec.required);
        QVERIFY2(table.help(flag).ends_with("(required)."), table.help(flag).c_str());
    }
    QVERIFY(table.help("tp").ends_with("(default 1)."));
    QVERIFY(table.help("seed").ends_with("(default 0)."));
    QVERIFY2(table.help("mode").ends_with("(default STRATEX_FAST_MODE=1 means fast, else auto)."),
        table.help("mode").c_str());
    QCOMPARE(cli::settingValueName(table.at("mode").spec), QStringLiteral("normal|fast|auto"));
}

QTEST_GUILESS_MAIN(TestPlannerSettings)
#include "tst_planner_settings.moc"
