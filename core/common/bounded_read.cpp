// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/bounded_read.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
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
    return "another kind of file";
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
    struct stat info { };
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
    // size < 0: the file grew while read, beyond the limit.
    const auto tooLarge = [&](std::int64_t size) {
        return Error(name + ": the file is " + (size >= 0 ? megabytes(size) + ", more than" : "larger than")
            + " the input limit of " + megabytes(limit) + " (--max-input-mb raises it)");
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
                throw tooLarge(-1);
            content.resize(
                std::min<std::size_t>(std::max<std::size_t>(content.size() * 2, 4096), std::size_t(limit) + 1));
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
        throw tooLarge(-1);
    content.resize(filled);
    return content;
}

} // namespace stratex
