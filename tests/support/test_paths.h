// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace stratex::test {

// ../shared next to the checkout: fixtures are read in place, never copied.
inline QString sharedDir()
{
    return QStringLiteral(STRATEX_SHARED_DIR);
}

inline QString fixture(const QString& relative)
{
    return sharedDir() + QStringLiteral("/fixtures/") + relative;
}

inline QString cliPath()
{
    return QStringLiteral(STRATEX_CLI_PATH);
}

} // namespace stratex::test
