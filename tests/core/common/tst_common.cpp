// SPDX-License-Identifier: GPL-3.0-or-later
// core/common: the input limits (one table, listed in the README and used by the settings tables)
// and bounded reading (regular files of at most the limit).
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "core/common/atomic_file.h"
#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/planner/planner_setting_table.h"
#include "core/profile/synth/synthesis_settings.h"
#include "core/galvatron/search_setting_table.h"

#include "support/test_paths.h"

using namespace stratex;
using stratex::test::writeTestFile;

class TestCommon : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readmeListsEveryLimit_data();
    void readmeListsEveryLimit();
    void settingTablesUseTheLimits_data();
    void settingTablesUseTheLimits();
    void readsRegularFilesWithinTheLimit_data();
    void readsRegularFilesWithinTheLimit();
    void parsesJsonAsNlohmannDoes_data();
    void parsesJsonAsNlohmannDoes();
    void reportsMalformedJson_data();
    void reportsMalformedJson();
    void writesKeepTheMode_data();
    void writesKeepTheMode();
    void failedWritesLeaveNoTemporary();
    void refusesToReplaceWhatIsNotARegularFile_data();
    void refusesToReplaceWhatIsNotARegularFile();
    void writesFileSets_data();
    void writesFileSets();
};

namespace {

// Names in `dir` that are temporaries of an atomic write (".NAME.tmp-...").
QStringList temporaries(const QString& dir)
{
    return QDir(dir).entryList(QStringList { QStringLiteral(".*.tmp-*") }, QDir::AllEntries | QDir::Hidden);
}

QByteArray contentOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

} // namespace

void TestCommon::readmeListsEveryLimit_data()
{
    QTest::addColumn<QString>("row");
    for (const limits::Limit& limit : limits::allLimits())
        QTest::newRow(std::string(limit.what).c_str()) << QString::fromStdString(limits::markdownRow(limit));
}

// The README's "Limits" table is these rows, verbatim: change a limit, paste its row.
void TestCommon::readmeListsEveryLimit()
{
    QFETCH(QString, row);
    QFile readme(QStringLiteral(STRATEX_README_PATH));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    QVERIFY(text.contains(QStringLiteral("\n## Limits\n")));
    const QByteArray message = "README.md's Limits table lacks the row\n" + row.toUtf8();
    QVERIFY2(text.contains(QLatin1Char('\n') + row + QLatin1Char('\n')), message.constData());
}

void TestCommon::settingTablesUseTheLimits_data()
{
    QTest::addColumn<double>("maximum");
    QTest::addColumn<double>("limit");
    const auto& search = galvatron::searchSettingTable();
    const auto& synth = profile::synth::synthesisSettingTable();
    const auto& planner = planner::plannerSettingTable();
    QTest::newRow("search memory-constraint")
        << search.at("memory-constraint").spec.maximum << double(limits::kMaxGpuMemoryGb);
    QTest::newRow("search num-nodes") << search.at("num-nodes").spec.maximum << double(limits::kMaxNodes);
    QTest::newRow("search num-gpus-per-node")
        << search.at("num-gpus-per-node").spec.maximum << double(limits::kMaxGpusPerNode);
    QTest::newRow("search num-layers") << search.at("num-layers").spec.maximum << double(limits::kMaxLayers);
    QTest::newRow("search settle-bsz") << search.at("settle-bsz").spec.maximum << double(limits::kMaxBatch);
    QTest::newRow("synth gpu-memory-gb") << synth.at("gpu-memory-gb").spec.maximum << double(limits::kMaxGpuMemoryGb);
    QTest::newRow("synth num-nodes") << synth.at("num-nodes").spec.maximum << double(limits::kMaxNodes);
    QTest::newRow("synth num-layers") << synth.at("num-layers").spec.maximum << double(limits::kMaxLayers);
    QTest::newRow("planner memory-mb") << planner.at("memory-mb").spec.maximum << limits::kMaxPlannerMemoryMb;
}

void TestCommon::settingTablesUseTheLimits()
{
    QFETCH(double, maximum);
    QFETCH(double, limit);
    QCOMPARE(maximum, limit);
}

void TestCommon::readsRegularFilesWithinTheLimit_data()
{
    QTest::addColumn<QString>("kind"); // file, dir, fifo, device, missing
    QTest::addColumn<int>("size"); // bytes of the file
    QTest::addColumn<qint64>("limit"); // maxInputBytes() for the read
    QTest::addColumn<QString>("error"); // "" reads; else the message after "<path>: "
    QTest::newRow("file") << "file" << 100 << qint64(limits::kDefaultMaxInputBytes) << "";
    QTest::newRow("empty file") << "file" << 0 << qint64(limits::kDefaultMaxInputBytes) << "";
    QTest::newRow("exactly the limit") << "file" << 4096 << qint64(4096) << "";
    QTest::newRow("one byte beyond the limit")
        << "file" << 4097 << qint64(4096)
        << "the file is 4097 bytes, more than the input limit of 4096 bytes (--max-input-mb raises it)";
    QTest::newRow("3 MB beyond 2 MB") << "file" << (3 << 20) << qint64(2 << 20)
                                      << "the file is 3 MB, more than the input limit of 2 MB";
    QTest::newRow("directory") << "dir" << 0 << qint64(limits::kDefaultMaxInputBytes)
                               << "expected a regular file, found a directory";
    QTest::newRow("FIFO") << "fifo" << 0 << qint64(limits::kDefaultMaxInputBytes)
                          << "expected a regular file, found a FIFO";
    QTest::newRow("/dev/zero") << "device" << 0 << qint64(limits::kDefaultMaxInputBytes)
                               << "expected a regular file, found a device";
    QTest::newRow("missing") << "missing" << 0 << qint64(limits::kDefaultMaxInputBytes)
                             << "cannot open file: No such file or directory";
}

void TestCommon::readsRegularFilesWithinTheLimit()
{
    QFETCH(QString, kind);
    QFETCH(int, size);
    QFETCH(qint64, limit);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("input"));
    if (kind == "file")
        QVERIFY(QFile(path).open(QIODevice::WriteOnly) && QFile(path).resize(size));
    else if (kind == "dir")
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("input")));
    else if (kind == "fifo")
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    else if (kind == "device")
        path = QStringLiteral("/dev/zero");
    const std::int64_t before = maxInputBytes();
    setMaxInputBytes(limit);
    QString message;
    std::string content;
    try {
        content = readTextFile(path.toStdString());
    } catch (const Error& e) {
        message = QString::fromUtf8(e.what());
    }
    setMaxInputBytes(before);
    if (error.isEmpty()) {
        QVERIFY2(message.isEmpty(), qPrintable(message));
        QCOMPARE(qsizetype(content.size()), qsizetype(size));
    } else {
        QVERIFY2(message.startsWith(path + QStringLiteral(": ") + error), qPrintable(message));
    }
}

// The reader builds its documents itself (linear in the input); they must be what nlohmann's own
// parser makes: same values, members in file order, a repeated key at its first place with its
// last value.
void TestCommon::parsesJsonAsNlohmannDoes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("scalars") << QByteArray(R"([null, true, false, -3, 18446744073709551615, 2.5e-3, "a\u00e9\n"])");
    QTest::newRow("file order") << QByteArray(R"({"b": 1, "a": {"z": [1, {"y": 2, "x": 3}], "c": {}}, "": []})");
    QTest::newRow("repeated key") << QByteArray(R"({"a": 1, "b": 2, "a": {"c": 3}, "b": [4]})");
    QTest::newRow("repeated key, nested") << QByteArray(R"([{"k": 1, "k": 2}, {"k": 3}])");
    QTest::newRow("scalar root") << QByteArray("  42  ");
    QTest::newRow("deep") << QByteArray(2000, '[') + QByteArray(2000, ']');
    QByteArray wide = "{";
    for (int i = 0; i < 5000; ++i)
        wide += (i ? ",\"k" : "\"k") + QByteArray::number((i * 7919) % 5000) + "\": " + QByteArray::number(i);
    QTest::newRow("wide, repeated keys") << wide + "}";
}

void TestCommon::parsesJsonAsNlohmannDoes()
{
    QFETCH(QByteArray, text);
    const std::string_view view(text.constData(), std::size_t(text.size()));
    const JsonDocument document = JsonDocument::parse(view, "doc.json");
    const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(view);
    QVERIFY(document.root().raw() == expected);
    QCOMPARE(QByteArray::fromStdString(document.root().raw().dump()), QByteArray::fromStdString(expected.dump()));
}

void TestCommon::reportsMalformedJson_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message"); // after "doc.json: "
    QTest::newRow("empty") << QByteArray() << "expected valid JSON, found parse error at line 1, column 1";
    QTest::newRow("truncated") << QByteArray(R"({"a": [1, 2)")
                               << "expected valid JSON, found parse error at line 1, column 12";
    QTest::newRow("trailing text") << QByteArray("{} x") << "expected valid JSON, found parse error";
    QTest::newRow("number beyond double")
        << QByteArray(R"({"a": 1e999})") << "expected valid JSON with finite numbers, found number overflow";
    QTest::newRow("binary") << QByteArray("\x80\x81") << "expected valid JSON, found parse error";
}

void TestCommon::reportsMalformedJson()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    try {
        JsonDocument::parse(std::string_view(text.constData(), std::size_t(text.size())), "doc.json");
        QFAIL("parsed");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith("doc.json: " + message), e.what());
    }
}

void TestCommon::writesKeepTheMode_data()
{
    QTest::addColumn<int>("existing"); // -1: no file yet
    QTest::addColumn<bool>("executable");
    QTest::addColumn<int>("expected"); // -1: what the umask gives a new file
    QTest::newRow("private file stays private") << 0600 << false << 0600;
    QTest::newRow("group-readable stays") << 0640 << false << 0640;
    QTest::newRow("executable stays executable") << 0755 << false << 0755;
    QTest::newRow("script: execute where readable") << 0640 << true << 0750;
    QTest::newRow("new file") << -1 << false << -1;
    QTest::newRow("new script") << -1 << true << -2;
}

void TestCommon::writesKeepTheMode()
{
    QFETCH(int, existing);
    QFETCH(bool, executable);
    QFETCH(int, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("out.txt"));
    if (existing >= 0) {
        QVERIFY(writeTestFile(path, "old"));
        QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode_t(existing)), 0);
    }
    const mode_t mask = ::umask(022);
    ::umask(mask);
    if (expected == -1)
        expected = int(0666 & ~mask);
    if (expected == -2)
        expected = int(0777 & ~mask);
    writeFileAtomically(path.toStdString(), "new", executable ? FileMode::Executable : FileMode::Regular);
    struct stat info { };
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
    QCOMPARE(int(info.st_mode & 07777), expected);
    QCOMPARE(contentOf(path), QByteArray("new"));
    QVERIFY(temporaries(dir.path()).isEmpty());
}

void TestCommon::failedWritesLeaveNoTemporary()
{
    // The rename fails (the target is a folder that is not empty): the error names the file,
    // and the temporary written next to it is gone.
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("out.json"));
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("out.json/inside")));
    try {
        writeFileAtomically(target.toStdString(), "{}");
        QFAIL("written");
    } catch (const Error& e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(target + QStringLiteral(": cannot replace file")), e.what());
    }
    QCOMPARE(temporaries(dir.path()), QStringList());
}

void TestCommon::refusesToReplaceWhatIsNotARegularFile_data()
{
    // Issue 26: as root, `export --out` onto a device node replaced the device with a regular file.
    // The devices themselves are not written to in a test: a FIFO, a folder and links stand in.
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message"); // empty: the write goes through
    QTest::newRow("FIFO") << QStringLiteral("fifo") << QStringLiteral("it is a named pipe (FIFO)");
    QTest::newRow("empty folder") << QStringLiteral("dir") << QStringLiteral("it is a directory");
    QTest::newRow("link to /dev/null") << QStringLiteral("link-null")
                                       << QStringLiteral("it is a symbolic link to a device");
    QTest::newRow("link to a FIFO") << QStringLiteral("link-fifo")
                                    << QStringLiteral("it is a symbolic link to a named pipe (FIFO)");
    QTest::newRow("dangling link") << QStringLiteral("link-missing")
                                   << QStringLiteral("it is a symbolic link to a missing file");
    QTest::newRow("link to a regular file") << QStringLiteral("link-file") << QString();
}

void TestCommon::refusesToReplaceWhatIsNotARegularFile()
{
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("out.json"));
    const QString fifo = dir.filePath(QStringLiteral("pipe"));
    const QString file = dir.filePath(QStringLiteral("real.json"));
    QVERIFY(writeTestFile(file, "old"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const auto link = [&](const QString& to) {
        return ::symlink(QFile::encodeName(to).constData(), QFile::encodeName(target).constData()) == 0;
    };
    if (kind == QLatin1String("fifo"))
        QCOMPARE(::mkfifo(QFile::encodeName(target).constData(), 0600), 0);
    else if (kind == QLatin1String("dir"))
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("out.json")));
    else if (kind == QLatin1String("link-null"))
        QVERIFY(link(QStringLiteral("/dev/null")));
    else if (kind == QLatin1String("link-fifo"))
        QVERIFY(link(fifo));
    else if (kind == QLatin1String("link-missing"))
        QVERIFY(link(dir.filePath(QStringLiteral("nothing.json"))));
    else
        QVERIFY(link(file));
    struct stat before { };
    QCOMPARE(::lstat(QFile::encodeName(target).constData(), &before), 0);

    for (const bool asSet : { false, true }) {
        QString error;
        try {
            if (asSet)
                writeFilesAtomically(dir.path().toStdString(), { { "other.json", "x" }, { "out.json", "new" } });
            else
                writeFileAtomically(target.toStdString(), "new");
        } catch (const Error& e) {
            error = QString::fromUtf8(e.what());
        }
        struct stat after { };
        QCOMPARE(::lstat(QFile::encodeName(target).constData(), &after), 0);
        QCOMPARE(after.st_mode & S_IFMT, before.st_mode & S_IFMT); // the link, FIFO or folder is still there
        if (message.isEmpty()) {
            // The link is kept; the regular file it names is replaced.
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(contentOf(file), QByteArray("new"));
            QVERIFY(writeTestFile(file, "old"));
            continue;
        }
        QVERIFY2(error.startsWith(target + QStringLiteral(": cannot replace file: ") + message), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("other.json")))); // a set: none written
        QCOMPARE(temporaries(dir.path()), QStringList());
    }
}

void TestCommon::writesFileSets_data()
{
    QTest::addColumn<bool>("folderExists");
    QTest::addColumn<bool>("failing"); // the second file's name is a non-empty folder: the set fails
    QTest::newRow("new folder") << false << false;
    QTest::newRow("existing folder") << true << false;
    QTest::newRow("existing folder, one file fails") << true << true;
}

void TestCommon::writesFileSets()
{
    QFETCH(bool, folderExists);
    QFETCH(bool, failing);
    QTemporaryDir parent;
    const QString dir = parent.filePath(QStringLiteral("set"));
    if (folderExists) {
        QVERIFY(QDir(parent.path()).mkdir(QStringLiteral("set")));
        QVERIFY(writeTestFile(dir + QStringLiteral("/a.json"), "old a"));
        QVERIFY(writeTestFile(dir + QStringLiteral("/c.json"), "old c"));
    }
    if (failing)
        QVERIFY(QDir(dir).mkpath(QStringLiteral("b.json/inside")));
    const std::vector<FileToWrite> files { { "a.json", "new a" }, { "b.json", "new b" }, { "c.json", "new c" } };
    QString message;
    try {
        writeFilesAtomically(dir.toStdString(), files);
    } catch (const Error& e) {
        message = QString::fromUtf8(e.what());
    }
    if (failing) {
        // Nothing renamed: the old set is whole, and no temporary is left.
        QVERIFY2(message.contains(QStringLiteral("b.json")), qPrintable(message));
        QCOMPARE(contentOf(dir + QStringLiteral("/a.json")), QByteArray("old a"));
        QCOMPARE(contentOf(dir + QStringLiteral("/c.json")), QByteArray("old c"));
        QCOMPARE(temporaries(dir), QStringList());
        return;
    }
    QVERIFY2(message.isEmpty(), qPrintable(message));
    for (const FileToWrite& file : files)
        QCOMPARE(contentOf(dir + QLatin1Char('/') + QString::fromStdString(file.name)),
            QByteArray::fromStdString(file.content));
    QCOMPARE(temporaries(dir), QStringList());
    QCOMPARE(temporaries(parent.path()), QStringList()); // no staging folder left
}

QTEST_GUILESS_MAIN(TestCommon)
#include "tst_common.moc"
