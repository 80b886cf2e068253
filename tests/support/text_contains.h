// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include <QtGlobal>

namespace stratex::test {

// Whether `text` contains `part`; a miss is logged, so that a failing QVERIFY says which part.
inline bool contains(const std::string& text, const std::string& part)
{
    if (text.find(part) != std::string::npos)
        return true;
    qWarning("missing: %s", part.c_str());
    return false;
}

} // namespace stratex::test
