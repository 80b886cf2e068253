// SPDX-License-Identifier: GPL-3.0-or-later
// Strings in the torchtitan main export (torchtitan_module.h): Python string literals escape
// every byte that could end the literal or the line, and a crafted model name stays one literal.
#include <QTest>

#include "core/export/python_literal.h"
#include "core/export/torchtitan_module.h"

#include "plan_file_test_util.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;

class TestTorchtitanStrings : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pythonStringEscapes_data();
    void pythonStringEscapes();
    void injectedModelNameStaysAString();
};

void TestTorchtitanStrings::pythonStringEscapes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("literal");
    QTest::newRow("plain") << QByteArray("llama3") << R"("llama3")";
    QTest::newRow("quote and backslash") << QByteArray("a\"b\\c") << R"("a\"b\\c")";
    QTest::newRow("newline ends no line") << QByteArray("x\")\nimport os\n#") << R"("x\")\nimport os\n#")";
    QTest::newRow("tab, return, NUL, DEL, ESC")
        << QByteArray("\t\r\0\x7f\x1b", 5) << R"("\t\r\x00\x7f\x1b")";
    QTest::newRow("UTF-8 as escapes") << QByteArray("\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80")
                                      << R"("\u00e9\u2028\U0001f600")";
    QTest::newRow("invalid UTF-8") << QByteArray("a\xff\xc0\x80z") << R"("a\ufffd\ufffd\ufffdz")";
    QTest::newRow("a lone surrogate's bytes") << QByteArray("\xed\xa0\x80") << R"("\ufffd\ufffd\ufffd")";
}

void TestTorchtitanStrings::pythonStringEscapes()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, literal);
    QCOMPARE(QString::fromStdString(pythonString(std::string(text.constData(), std::size_t(text.size())))), literal);
}

void TestTorchtitanStrings::injectedModelNameStaysAString()
{
    // A model name crafted to close the string and the call: it stays one literal and one comment.
    megatron::PlanFile plan = planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    plan.model.name = "x\"]\nimport os\nos.system(\"id\")\n#\r";
    const TorchtitanConfig config = torchtitanModule(plan);
    QVERIFY2(config.text.find("\nimport os") == std::string::npos, config.text.c_str());
    QVERIFY2(config.text.find("\nos.system") == std::string::npos, config.text.c_str());
    QVERIFY(config.text.find(pythonString("stratex-" + plan.model.name)) != std::string::npos);
    for (const char c : config.text)
        QVERIFY2(c == '\n' || (c >= 0x20 && c < 0x7f), "a control or non-ASCII byte in the module");
}

QTEST_GUILESS_MAIN(TestTorchtitanStrings)
#include "tst_torchtitan_strings.moc"
