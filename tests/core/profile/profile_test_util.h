// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <QString>
#include <QTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/profile/profile_set.h"

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

// The six llama2-7b fixture files for 1 or 2 nodes of 8 GPUs, read in place. There is no 2-node
// sp_time file: the 1-node latency table serves both (as in the oracle's runs).
inline profile::ProfilePaths llamaProfilePaths(int nodes = 1)
{
    const std::string n = std::to_string(nodes);
    profile::ProfilePaths paths;
    paths.computation = galvatronFixture("computation_profiling_bf16_llama2-7b_all.json");
    paths.memory = galvatronFixture("memory_profiling_bf16_llama2-7b_all.json");
    paths.allreduce = galvatronFixture(("allreduce_bandwidth_" + n + "nodes_8gpus_per_node.json").c_str());
    paths.p2p = galvatronFixture(("p2p_bandwidth_" + n + "nodes_8gpus_per_node.json").c_str());
    paths.overlap = galvatronFixture("overlap_coefficient.json");
    paths.spTime = galvatronFixture("sp_time_1nodes_8gpus_per_node.json");
    return paths;
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
