// SPDX-License-Identifier: GPL-3.0-or-later
// The escapers of the exports (core/export/shell_quote.h, tomlString of pytorch_exports.h): every
// string a user controls (a model name) is written so that it reads back as itself and cannot
// end its string, comment or line early (issue 26: a name with a newline wrote invalid TOML and
// "\"]\n[job]\nx=1" injected keys into torchtitan's [job]).
#include <QTest>

#include <optional>
#include <string>

#include "core/export/pytorch_exports.h"
#include "core/export/shell_quote.h"

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

QTEST_APPLESS_MAIN(TestEscaping)
#include "tst_escaping.moc"
