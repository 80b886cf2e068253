// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every fuzz target does with an input: hand it to a loader and accept exactly two outcomes,
// a value or a stratex::Error (InputError naming file and key). Anything else -- another
// exception, a crash, a sanitizer report, a hang -- is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/error.h"

namespace stratex::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size)
{
    return { reinterpret_cast<const char*>(data), size };
}

template <typename F> void expectValueOrError(F&& load)
{
    try {
        load();
    } catch (const Error&) {
        // A clear error is the right answer to a bad input.
    }
}

} // namespace stratex::fuzz
