// SPDX-License-Identifier: GPL-3.0-or-later
// The escapers of the exports (core/export/shell_quote.h, tomlString of pytorch_exports.h): every
// string a user controls (a model name) is written so that it reads back as itself and cannot
// end its string, comment or line early (issue 26: a name with a newline wrote invalid TOML and
// "\"]\n[job]\nx=1" injected keys into torchtitan's [job]).
#include <QTest>

#include <optional>
#include <string>

#include <cmath>
#include <limits>

#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include "core/common/json_output.h"
#include "core/export/chrome_trace.h"
#include "core/export/pytorch_exports.h"
#include "core/export/shell_quote.h"
#include "core/planner/planner_compare.h"
#include "core/runs/cluster_calibration.h"
#include "core/sim/timeline.h"

using namespace stratex;
using namespace stratex::exporting;

namespace {

void appendUtf8(std::string& out, unsigned code)
{
    if (code < 0x80) {
        out += char(code);
    } else if (code < 0x800) {
        out += char(0xc0 | (code >> 6));
        out += char(0x80 | (code & 0x3f));
    } else {
        out += char(0xe0 | (code >> 12));
        out += char(0x80 | ((code >> 6) & 0x3f));
        out += char(0x80 | (code & 0x3f));
    }
}

// Reads one TOML basic string (TOML 1.0, "String") that must fill `text` exactly; nothing when
// it is not one: a raw control character, an unknown escape, a quote that ends it early.
std::optional<std::string> parseTomlBasicString(const std::string& text)
{
    if (text.size() < 2 || text.front() != '"' || text.back() != '"')
        return std::nullopt;
    std::string out;
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\t') || c == 0x7f || c == '"')
            return std::nullopt;
        if (c != '\\') {
            out += char(c);
            continue;
        }
        if (i + 2 >= text.size())
            return std::nullopt;
        const char e = text[++i];
        switch (e) {
        case 'b': out += '\b'; break;
        case 't': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'f': out += '\f'; break;
        case 'r': out += '\r'; break;
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'u': {
            if (i + 5 >= text.size())
                return std::nullopt;
            appendUtf8(out, unsigned(std::stoul(text.substr(i + 1, 4), nullptr, 16)));
            i += 4;
            break;
        }
        default:
            return std::nullopt;
        }
    }
    return out;
}

// Reads one POSIX-shell word made of single-quoted parts and \' (what shellQuote writes).
std::optional<std::string> parseShellWord(const std::string& text)
{
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, 2, "\\'") == 0) {
            out += '\'';
            i += 2;
        } else if (text[i] == '\'') {
            const std::size_t end = text.find('\'', i + 1);
            if (end == std::string::npos)
                return std::nullopt;
            out += text.substr(i + 1, end - i - 1);
            i = end + 1;
        } else {
            return std::nullopt; // an unquoted byte: the shell would interpret it
        }
    }
    return out;
}

} // namespace

class TestEscaping : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tomlStringsReadBack_data();
    void tomlStringsReadBack();
    void commentLinesStayOneLine_data();
    void commentLinesStayOneLine();
    void shellWordsReadBack_data();
    void shellWordsReadBack();
    void fileNamePartsStayInTheFolder_data();
    void fileNamePartsStayInTheFolder();
    void jsonStringsReadBack_data();
    void jsonStringsReadBack();
    void writtenJsonReadsBack_data();
    void writtenJsonReadsBack();
    void nonFiniteNumbersRefused_data();
    void nonFiniteNumbersRefused();
    void csvCellsAreNumbers_data();
    void csvCellsAreNumbers();
};

namespace {
void addHostileTexts()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("plain") << QByteArray("llama3-70b");
    QTest::newRow("newline") << QByteArray("llama\nnext");
    QTest::newRow("TOML section injection") << QByteArray("x\"]\n[job]\nx=1");
    QTest::newRow("carriage return") << QByteArray("a\r[job]");
    QTest::newRow("every control character") << QByteArray("\x01\x02\x07\x08\x09\x0b\x0c\x0e\x1b[0m\x1f\x7f", 12);
    QTest::newRow("NUL") << QByteArray("a\0b", 3);
    QTest::newRow("quotes and backslashes") << QByteArray("\\\"'\\\\\"'\"");
    QTest::newRow("shell injection") << QByteArray("'; rm -rf / #$(id)`id`");
    QTest::newRow("UTF-8") << QByteArray("Llama \xe2\x80\x94 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\xa6\x99");
    QTest::newRow("line separators") << QByteArray("a\xe2\x80\xa8[job]\xe2\x80\xa9z");
}
} // namespace

void TestEscaping::tomlStringsReadBack_data()
{
    addHostileTexts();
    QTest::newRow("invalid UTF-8") << QByteArray("a\xff\xc0\x80\xed\xa0\x80z");
}

void TestEscaping::tomlStringsReadBack()
{
    QFETCH(QByteArray, text);
    const std::string input = text.toStdString();
    const std::string quoted = tomlString(input);
    QVERIFY2(quoted.find('\n') == std::string::npos && quoted.find('\r') == std::string::npos, quoted.c_str());
    const std::optional<std::string> read = parseTomlBasicString(quoted);
    QVERIFY2(read.has_value(), quoted.c_str());
    if (QTest::currentDataTag() == QLatin1String("invalid UTF-8"))
        QCOMPARE(*read, std::string("a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"));
    else
        QCOMPARE(*read, input);
}

void TestEscaping::commentLinesStayOneLine_data()
{
    addHostileTexts();
}

void TestEscaping::commentLinesStayOneLine()
{
    // TOML comments allow no control character but tab; shell and Python comments end at \n, \r.
    QFETCH(QByteArray, text);
    const std::string line = commentLine(text.toStdString());
    for (const char c : line) {
        const auto byte = static_cast<unsigned char>(c);
        QVERIFY2(byte == '\t' || (byte >= 0x20 && byte != 0x7f), line.c_str());
    }
    QCOMPARE(line.size(), std::size_t(text.size()));
}

void TestEscaping::shellWordsReadBack_data()
{
    addHostileTexts();
}

void TestEscaping::shellWordsReadBack()
{
    QFETCH(QByteArray, text);
    const std::string input = text.toStdString();
    const std::optional<std::string> read = parseShellWord(shellQuote(input));
    QVERIFY(read.has_value());
    std::string withoutNul = input; // no argument holds a NUL: it is dropped
    std::erase(withoutNul, '\0');
    QCOMPARE(*read, withoutNul);
}

void TestEscaping::fileNamePartsStayInTheFolder_data()
{
    addHostileTexts();
    QTest::newRow("climbs") << QByteArray("../../etc/passwd");
    QTest::newRow("dot dot") << QByteArray("..");
    QTest::newRow("absolute") << QByteArray("/tmp/x");
}

void TestEscaping::fileNamePartsStayInTheFolder()
{
    QFETCH(QByteArray, text);
    const std::string part = fileNamePart(text.toStdString());
    QVERIFY(part != "." && part != "..");
    for (const char c : part)
        QVERIFY2(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-',
            part.c_str());
}

namespace {

// What a strict JSON reader makes of `text`: every string escaped (nlohmann's parser rejects raw
// control characters and bytes that are not UTF-8).
std::optional<nlohmann::json> parseStrictly(const std::string& text)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

const std::string kReplacement = "\xef\xbf\xbd"; // U+FFFD

} // namespace

void TestEscaping::jsonStringsReadBack_data()
{
    addHostileTexts();
    QTest::newRow("invalid UTF-8") << QByteArray("a\xff\xc0\x80z");
    QTest::newRow("JSON injection") << QByteArray("x\", \"fits\": true, \"y\": \"");
}

void TestEscaping::jsonStringsReadBack()
{
    // core/common/json_output.h: one escaper for every JSON written (nlohmann's), U+FFFD for bytes
    // that are not UTF-8.
    QFETCH(QByteArray, text);
    const std::string input = text.toStdString();
    const std::string quoted = jsonString(input);
    for (const char c : quoted)
        QVERIFY2(static_cast<unsigned char>(c) >= 0x20, quoted.c_str());
    const std::optional<nlohmann::json> read = parseStrictly(quoted);
    QVERIFY2(read && read->is_string(), quoted.c_str());
    if (QTest::currentDataTag() == QLatin1String("invalid UTF-8"))
        QCOMPARE(read->get<std::string>(), "a" + kReplacement + kReplacement + kReplacement + "z");
    else
        QCOMPARE(read->get<std::string>(), input);
}

void TestEscaping::writtenJsonReadsBack_data()
{
    addHostileTexts();
    QTest::newRow("invalid UTF-8") << QByteArray("a\xff\xc0\x80z");
    QTest::newRow("JSON injection") << QByteArray("x\", \"fits\": true, \"y\": \"");
}

void TestEscaping::writtenJsonReadsBack()
{
    // Two writers that carry a user's text: the calibrated cluster (a run's id is its file's name)
    // and the Chrome trace (a section's title is the case's name, streamed by hand).
    QFETCH(QByteArray, text);
    const std::string input = text.toStdString();
    std::string expected = input;
    if (QTest::currentDataTag() == QLatin1String("invalid UTF-8"))
        expected = "a" + kReplacement + kReplacement + kReplacement + "z";

    runs::ClusterCalibration calibration;
    calibration.cluster.gpu.name = "h100-80gb";
    runs::RunError error;
    error.id = input;
    error.measured_iteration_s = 1.5;
    error.predicted_iteration_s = 1.2;
    calibration.result.before = { error };
    calibration.result.after = { error };
    const std::string cluster = jsonText(runs::calibratedClusterJson(calibration), 2, "cluster.json");
    const std::optional<nlohmann::json> clusterRead = parseStrictly(cluster);
    QVERIFY2(clusterRead, cluster.c_str());
    QCOMPARE(clusterRead->at("calibration").at("runs").at(0).at("id").get<std::string>(), expected);
    QVERIFY(!clusterRead->at("calibration").contains("fits"));

    sim::Timeline timeline;
    timeline.devices.push_back({});
    const std::string trace = chromeTraceJson(timeline, input);
    const std::optional<nlohmann::json> traceRead = parseStrictly(trace);
    QVERIFY2(traceRead, trace.c_str());
    const nlohmann::json& first = traceRead->at("traceEvents").at(0);
    QCOMPARE(first.at("name").get<std::string>(), std::string("process_name"));
    QCOMPARE(first.at("args").at("name").get<std::string>(), expected + " device 00");
}

void TestEscaping::nonFiniteNumbersRefused_data()
{
    QTest::addColumn<QByteArray>("where"); // the JSON pointer the error names; empty: written
    QTest::addColumn<double>("value");
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("finite") << QByteArray() << 1e308;
    QTest::newRow("infinite time") << QByteArray("/runs/1/predicted_iteration_s") << inf;
    QTest::newRow("negative infinity") << QByteArray("/runs/1/predicted_iteration_s") << -inf;
    QTest::newRow("NaN") << QByteArray("/runs/1/predicted_iteration_s") << std::nan("");
}

void TestEscaping::nonFiniteNumbersRefused()
{
    // nlohmann writes NaN and infinities as null, which reads as "no value" (issue 26: "iteration
    // inf s" with JSON null and "fits": true): every JSON writer refuses them instead.
    QFETCH(QByteArray, where);
    QFETCH(double, value);
    nlohmann::ordered_json json = { { "fits", true }, { "a/b~c", 1.0 },
        { "runs", { { { "id", "r0" } }, { { "id", "r1" }, { "predicted_iteration_s", value } } } } };
    try {
        const std::string text = jsonText(json, 2, "out.json");
        QVERIFY2(where.isEmpty(), text.c_str());
        QVERIFY(parseStrictly(text));
    } catch (const Error& refused) {
        QVERIFY2(!where.isEmpty(), refused.what());
        const QString message = QString::fromUtf8(refused.what());
        QVERIFY2(message.startsWith(QLatin1String("out.json: ") + QString::fromLatin1(where)), refused.what());
    }
    // A key with "/" or "~" is named as RFC 6901 writes it.
    nlohmann::ordered_json keyed = { { "a/b~c", { { "x", value } } } };
    if (!where.isEmpty())
        QCOMPARE(firstNonFiniteNumber(keyed), std::string("/a~1b~0c/x"));

    // The Chrome trace writer formats numbers by hand: refused the same way.
    sim::Timeline timeline;
    timeline.devices.push_back({});
    timeline.devices.back().memory.push_back({ 0.0, value });
    bool refusedTrace = false;
    try {
        QVERIFY(parseStrictly(chromeTraceJson(timeline, "t")));
    } catch (const Error&) {
        refusedTrace = true;
    }
    QCOMPARE(refusedTrace, !where.isEmpty());
}

void TestEscaping::csvCellsAreNumbers_data()
{
    QTest::addColumn<double>("value");
    QTest::newRow("plain") << 12.5;
    QTest::newRow("negative") << -3.0;
    QTest::newRow("huge") << 1e300;
    QTest::newRow("infinite") << std::numeric_limits<double>::infinity();
}

void TestEscaping::csvCellsAreNumbers()
{
    // The CSV policy (docs/ARCHITECTURE.md, "Output formats"): Stratex's CSV files hold numbers
    // and generated names only, never a user's text, so no cell needs quoting and none can start
    // a spreadsheet formula (=, +, @; a leading - is a number's sign). A text column added later
    // fails this test until it is quoted and guarded.
    QFETCH(double, value);
    planner::PlanCompareRow row;
    row.global_batch = 64;
    row.microbatches = 8;
    row.normal_time_ms = value;
    row.fast_time_ms = value;
    row.speedup = value;
    row.normal_makespan_ms = value;
    row.normal_feasible = true;
    row.comparable = true;
    row.quality_loss_percent = value;
    row.note = "=HYPERLINK(\"http://x\",\"y\"),\n\"";
    row.normal_spread.seeds = row.fast_spread.seeds = 2;
    const std::string csv = planner::planCompareCsv({ row });
    const QStringList lines = QString::fromStdString(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    const QRegularExpression cell(QStringLiteral("^([a-z_]+|-?[0-9]+(\\.[0-9]+)?|-?inf|nan|)$"));
    for (const QString& line : lines) {
        for (const QString& field : line.split(QLatin1Char(',')))
            QVERIFY2(cell.match(field).hasMatch(), qPrintable(field));
    }
}

QTEST_APPLESS_MAIN(TestEscaping)
#include "tst_escaping.moc"
