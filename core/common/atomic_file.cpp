// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/common/error.h"
#include "core/common/input_limits.h"

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

namespace {

std::atomic<std::int64_t> g_maxInputBytes { limits::kDefaultMaxInputBytes };

std::string megabytes(std::int64_t bytes)
{
    const std::int64_t mb = bytes >> 20;
    return mb > 0 ? std::to_string(mb) + " MB" : std::to_string(bytes) + " bytes";
}

// What a path that is not a regular file is, for the message.
std::string kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

class FileDescriptor {
public:
    explicit FileDescriptor(int fd)
        : m_fd(fd)
    {
    }
    ~FileDescriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

} // namespace

std::int64_t maxInputBytes()
{
    return g_maxInputBytes.load(std::memory_order_relaxed);
}

void setMaxInputBytes(std::int64_t bytes)
{
    g_maxInputBytes.store(bytes, std::memory_order_relaxed);
}

std::string readTextFile(const fs::path& path)
{
    const std::string name = path.string();
    // stat before open: opening a FIFO for reading would wait for a writer.
    struct stat info {};
    if (::stat(name.c_str(), &info) != 0)
        throw Error(name + ": cannot open file: " + systemReason());
    if (!S_ISREG(info.st_mode))
        throw Error(name + ": expected a regular file, found " + kindOf(info.st_mode));
    const FileDescriptor fd(::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0)
        throw Error(name + ": cannot open file: " + systemReason());
    // The path may have been replaced between stat and open.
    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode))
        throw Error(name + ": expected a regular file, found " + kindOf(info.st_mode));
    const std::int64_t limit = maxInputBytes();
    const auto tooLarge = [&](std::int64_t size) {
        return Error(name + ": the file is " + (size > limit ? megabytes(size) : "larger than the limit")
            + ", more than the input limit of " + megabytes(limit) + " (--max-input-mb raises it)");
    };
    if (std::int64_t(info.st_size) > limit)
        throw tooLarge(std::int64_t(info.st_size));
    std::string content;
    content.resize(std::size_t(info.st_size));
    std::size_t filled = 0;
    while (true) {
        if (filled == content.size()) {
            // The file grew (or st_size was 0, as for some pseudo-files): read on, up to the limit.
            if (std::int64_t(content.size()) > limit)
                throw tooLarge(std::int64_t(content.size()));
            content.resize(std::min<std::size_t>(std::max<std::size_t>(content.size() * 2, 4096), std::size_t(limit) + 1));
        }
        const ssize_t got = ::read(fd.get(), content.data() + filled, content.size() - filled);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw Error(name + ": read failed: " + systemReason());
        }
        if (got == 0)
            break;
        filled += std::size_t(got);
    }
    if (std::int64_t(filled) > limit)
        throw tooLarge(std::int64_t(filled));
    content.resize(filled);
    return content;
}

} // namespace stratex
