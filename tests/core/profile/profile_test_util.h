// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <QString>
#include <QTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"

#include "support/test_paths.h"

// QCOMPARE compares doubles fuzzily (1e-12 relative); Galvatron's numbers are reproduced bit for
// bit, so these checks compare exactly and print 17 digits on failure.
#define QCOMPARE_EXACT(actual, expected)                                                                               \
    do {                                                                                                               \
        const double actualValue_ = (actual);                                                                          \
        const double expectedValue_ = (expected);                                                                      \
        QVERIFY2(actualValue_ == expectedValue_,                                                                       \
            qPrintable(QStringLiteral("%1: %2, expected %3")                                                           \
                           .arg(QStringLiteral(#actual))                                                               \
                           .arg(actualValue_, 0, 'g', 17)                                                              \
                           .arg(expectedValue_, 0, 'g', 17)));                                                         \
    } while (false)

namespace stratex::test {

inline std::filesystem::path galvatronFixture(const char* name)
{
    return std::filesystem::path(fixture(QStringLiteral("galvatron/") + QString::fromUtf8(name)).toStdString());
}

inline JsonDocument jsonText(const std::string& text, const std::string& name = "inline.json")
{
    return JsonDocument::parse(text, name);
}

// Runs `action`, which must throw an InputError whose fields contain the given fragments.
inline bool throwsInputError(const std::function<void()>& action, const std::string& file, const std::string& keyPath,
    const std::string& expectedPart, const std::string& foundPart, std::string* message = nullptr)
{
    try {
        action();
    } catch (const InputError& error) {
        if (message)
            *message = error.what();
        const bool ok = error.file().find(file) != std::string::npos && error.keyPath() == keyPath
            && error.expected().find(expectedPart) != std::string::npos
            && error.found().find(foundPart) != std::string::npos;
        if (!ok)
            qWarning("unexpected InputError: %s (key path \"%s\")", error.what(), error.keyPath().c_str());
        return ok;
    } catch (const std::exception& error) {
        qWarning("unexpected exception: %s", error.what());
        return false;
    }
    qWarning("no exception");
    return false;
}

} // namespace stratex::test
