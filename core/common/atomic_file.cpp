// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/common/error.h"

namespace stratex {

namespace fs = std::filesystem;

namespace {
std::string systemReason()
{
    return errno != 0 ? std::string(std::strerror(errno)) : std::string("unknown I/O error");
}

fs::path temporarySibling(const fs::path& path)
{
    // Unique enough for concurrent writers in one process and across processes.
    static thread_local std::mt19937_64 rng { std::random_device {}() };
    std::ostringstream name;
    name << '.' << path.filename().string() << ".tmp-" << std::hex << rng();
    return path.parent_path() / name.str();
}
} // namespace

void writeFileAtomically(const fs::path& path, std::string_view content, FileMode mode)
{
    const fs::path target = path.parent_path().empty() ? fs::path(".") / path : path;
    const fs::path temporary = temporarySibling(target);
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            throw Error(path.string() + ": cannot create file: " + systemReason());
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            const std::string reason = systemReason();
            out.close();
            std::error_code ignored;
            fs::remove(temporary, ignored);
            throw Error(path.string() + ": write failed: " + reason);
        }
    }
    std::error_code ec;
    if (mode == FileMode::Executable) {
        fs::permissions(temporary,
            fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec | fs::perms::owner_read
                | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read,
            fs::perm_options::replace, ec);
    }
    fs::rename(temporary, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw Error(path.string() + ": cannot replace file: " + ec.message());
    }
}

std::string readTextFile(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path.string() + ": cannot open file: " + systemReason());
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        throw Error(path.string() + ": read failed: " + systemReason());
    return std::move(buffer).str();
}

} // namespace stratex
