// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

namespace stratex::test {

// Data of the peer projects, copied into tests/data with its provenance (tests/data/README.md):
// a clean clone tests itself.
inline QString fixture(const QString& relative)
{
    return QStringLiteral(STRATEX_TEST_DATA_DIR "/") + relative;
}

// Writes `content` to `path` (a test's input file); false when it cannot.
inline bool writeTestFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
}

inline QString cliPath()
{
    return QStringLiteral(STRATEX_CLI_PATH);
}

} // namespace stratex::test
