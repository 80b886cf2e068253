// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

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

// The temporaries being written, for removePendingTemporaries() in a signal handler: fixed slots
// of plain characters, claimed and released with atomics (no allocation, no lock).
constexpr int kPendingSlots = 16;
constexpr std::size_t kPendingPathSize = 4096;
struct PendingSlot {
    std::atomic<bool> claimed { false };
    std::atomic<bool> ready { false };
    bool directory = false; // a staging folder: removed (rmdir) after the files
    char path[kPendingPathSize] = {};
};
PendingSlot g_pending[kPendingSlots];

// Registers a temporary (a file, or a staging folder) for the lifetime of the object; removes it
// unless kept.
class PendingTemporary {
public:
    explicit PendingTemporary(fs::path path, bool directory = false)
        : m_path(std::move(path))
        , m_directory(directory)
    {
        const std::string text = m_path.string();
        if (text.size() >= kPendingPathSize)
            return;
        for (int i = 0; i < kPendingSlots; ++i) {
            bool expected = false;
            if (g_pending[i].claimed.compare_exchange_strong(expected, true)) {
                std::memcpy(g_pending[i].path, text.c_str(), text.size() + 1);
                g_pending[i].directory = directory;
                g_pending[i].ready.store(true);
                m_slot = i;
                return;
            }
        }
    }
    ~PendingTemporary()
    {
        if (!m_kept) {
            std::error_code ignored;
            if (m_directory)
                fs::remove_all(m_path, ignored);
            else
                fs::remove(m_path, ignored);
        }
        if (m_slot >= 0) {
            g_pending[m_slot].ready.store(false);
            g_pending[m_slot].claimed.store(false);
        }
    }
    PendingTemporary(const PendingTemporary&) = delete;
    PendingTemporary& operator=(const PendingTemporary&) = delete;

    const fs::path& path() const { return m_path; }
    void keep() { m_kept = true; } // renamed into place: nothing to remove

private:
    fs::path m_path;
    bool m_directory = false;
    int m_slot = -1;
    bool m_kept = false;
};

// The permissions a replacement gets: the existing file's (Executable adds x where r is), or
// for a new file the umask's (applied by open).
struct TargetMode {
    bool exists = false;
    mode_t mode = 0;
};

TargetMode targetMode(const fs::path& target, FileMode mode)
{
    struct stat info { };
    if (::stat(target.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
        return {};
    mode_t bits = info.st_mode & 07777;
    if (mode == FileMode::Executable)
        bits |= (bits & 0444) >> 2;
    return { true, bits };
}

void syncDirectory(const fs::path& dir)
{
    // Makes the rename durable; best effort (some file systems refuse fsync on a directory).
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// Writes what `produce` hands its sink to the new file `temporary`, in chunks of kChunkBytes,
// and flushes it to disk; throws naming `shown`. The content is never held whole.
constexpr std::size_t kChunkBytes = 1 << 16;

void writeAndSync(const fs::path& temporary, const std::string& shown, const ContentProducer& produce, FileMode mode,
    const TargetMode& existing)
{
    const mode_t createMode = existing.exists ? 0600 : (mode == FileMode::Executable ? 0777 : 0666);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, createMode);
    if (fd < 0)
        throw Error(shown + ": cannot create file: " + systemReason());
    struct Closer {
        int fd;
        bool open = true;
        ~Closer()
        {
            if (open)
                ::close(fd);
        }
    } closer { fd };
    auto writeAll = [&](std::string_view data) {
        std::size_t written = 0;
        while (written < data.size()) {
            const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                throw Error(shown + ": write failed: " + systemReason());
            written += std::size_t(n);
        }
    };
    std::string buffer;
    buffer.reserve(kChunkBytes);
    const ContentSink sink = [&](std::string_view piece) {
        if (buffer.size() + piece.size() > kChunkBytes) {
            writeAll(buffer);
            buffer.clear();
            if (piece.size() > kChunkBytes) {
                writeAll(piece);
                return;
            }
        }
        buffer.append(piece);
    };
    produce(sink);
    writeAll(buffer);
    std::string failure;
    if (existing.exists && ::fchmod(fd, existing.mode) != 0)
        failure = "cannot keep the file's permissions: " + systemReason();
    if (failure.empty() && ::fsync(fd) != 0)
        failure = "write failed: " + systemReason();
    closer.open = false;
    if (::close(fd) != 0 && failure.empty())
        failure = "write failed: " + systemReason();
    if (!failure.empty())
        throw Error(shown + ": " + failure);
}

void writeAndSync(const fs::path& temporary, const std::string& shown, std::string_view content, FileMode mode,
    const TargetMode& existing)
{
    writeAndSync(
        temporary, shown, ContentProducer([content](const ContentSink& sink) { sink(content); }), mode, existing);
}

// What a write may replace: a regular file, or nothing. The rename replaced whatever was there:
// as root, `export --out /dev/sda` turned the device into a regular file (issue 26); a FIFO or a
// socket likewise. A symbolic link is followed when it ends at a regular file -- the file it names
// is replaced and the link kept, as an editor's save does; a link to anything else (/dev/null) or
// to nothing is refused. Checked before the write; a file swapped for a device between the check
// and the rename is not caught (only a writer racing us could do that).
fs::path replaceableTarget(const fs::path& target, const std::string& shown)
{
    struct stat link { };
    if (::lstat(target.c_str(), &link) != 0)
        return target; // missing: created (other errors surface when the temporary is made)
    if (S_ISREG(link.st_mode))
        return target;
    const auto kind = [](mode_t mode) -> std::string {
        if (S_ISDIR(mode))
            return "a directory";
        if (S_ISCHR(mode) || S_ISBLK(mode))
            return "a device";
        if (S_ISFIFO(mode))
            return "a named pipe (FIFO)";
        if (S_ISSOCK(mode))
            return "a socket";
        return "something other than a regular file";
    };
    if (S_ISLNK(link.st_mode)) {
        struct stat info { };
        if (::stat(target.c_str(), &info) != 0)
            throw Error(shown + ": cannot replace file: it is a symbolic link to a missing file");
        if (!S_ISREG(info.st_mode))
            throw Error(shown + ": cannot replace file: it is a symbolic link to " + kind(info.st_mode)
                + "; only regular files are replaced");
        std::error_code ec;
        const fs::path resolved = fs::canonical(target, ec);
        if (ec)
            throw Error(shown + ": cannot replace file: " + ec.message());
        return resolved;
    }
    throw Error(shown + ": cannot replace file: it is " + kind(link.st_mode) + "; only regular files are replaced");
}

fs::path withDirectory(const fs::path& path)
{
    return path.parent_path().empty() ? fs::path(".") / path : path;
}

// "out/set/" names the folder "out/set": with the slash its filename is empty, its parent the
// folder itself, and the staging sibling landed inside the target (rename: "Directory not
// empty"). "out/set/." and doubled slashes likewise.
fs::path withoutTrailingSeparator(const fs::path& dir)
{
    fs::path folder = dir.lexically_normal();
    while (!folder.empty() && folder.filename().empty() && folder != folder.root_path())
        folder = folder.parent_path();
    return folder.empty() ? fs::path(".") : folder;
}
} // namespace

void writeFileAtomically(const fs::path& path, std::string_view content, FileMode mode)
{
    writeFileAtomically(path, ContentProducer([content](const ContentSink& sink) { sink(content); }), mode);
}

void writeFileAtomically(const fs::path& path, const ContentProducer& produce, FileMode mode)
{
    const fs::path target = replaceableTarget(withDirectory(path), path.string());
    PendingTemporary temporary(temporarySibling(target));
    writeAndSync(temporary.path(), path.string(), produce, mode, targetMode(target, mode));
    std::error_code ec;
    fs::rename(temporary.path(), target, ec);
    if (ec)
        throw Error(path.string() + ": cannot replace file: " + ec.message());
    temporary.keep();
    syncDirectory(target.parent_path());
}

namespace {

// A file's name in a set: relative, inside the folder.
void requireNameInside(const fs::path& dir, const std::string& name)
{
    const fs::path relative(name);
    bool climbs = false;
    for (const fs::path& part : relative)
        climbs = climbs || part == "..";
    if (name.empty() || relative.is_absolute() || relative.has_root_name() || climbs
        || !relative.has_filename())
        throw Error((dir / name).string() + ": a file of the set must lie inside " + dir.string());
}

} // namespace

void writeFilesAtomically(const fs::path& dir, const std::vector<FileToWrite>& files)
{
    for (const FileToWrite& file : files)
        requireNameInside(dir, file.name);
    const fs::path folder = withDirectory(withoutTrailingSeparator(dir));
    std::error_code ec;
    if (!fs::exists(folder, ec)) {
        // A new folder: fill a temporary sibling, then one rename publishes the whole set.
        fs::create_directories(folder.parent_path(), ec);
        if (ec)
            throw Error("cannot create directory " + folder.parent_path().string() + ": " + ec.message());
        PendingTemporary staging(temporarySibling(folder), true);
        if (!fs::create_directory(staging.path(), ec))
            throw Error(
                "cannot create directory " + staging.path().string() + ": " + (ec ? ec.message() : "it exists"));
        std::vector<std::unique_ptr<PendingTemporary>> written; // for a signal: files first, then the folders
        std::vector<std::unique_ptr<PendingTemporary>> subfolders;
        for (const FileToWrite& file : files) {
            const fs::path parent = fs::path(file.name).parent_path();
            fs::path made = staging.path();
            for (const fs::path& part : parent) {
                made /= part;
                if (fs::is_directory(made, ec))
                    continue;
                if (!fs::create_directory(made, ec))
                    throw Error("cannot create directory " + (dir / parent).string() + ": "
                        + (ec ? ec.message() : "it exists"));
                subfolders.push_back(std::make_unique<PendingTemporary>(made, true));
            }
            written.push_back(std::make_unique<PendingTemporary>(staging.path() / file.name));
            writeAndSync(written.back()->path(), (dir / file.name).string(), file.content, file.mode, {});
        }
        syncDirectory(staging.path());
        fs::rename(staging.path(), folder, ec);
        if (ec)
            throw Error("cannot create directory " + dir.string() + ": " + ec.message());
        for (auto& file : written)
            file->keep();
        for (auto& subfolder : subfolders)
            subfolder->keep();
        staging.keep();
        syncDirectory(folder.parent_path());
        return;
    }
    if (!fs::is_directory(folder, ec))
        throw Error(dir.string() + ": expected a directory, found a file");
    // An existing folder: every target checked and every temporary written first, then the renames
    // (which cannot fail on a writable folder's regular files): all files are replaced or none.
    std::vector<fs::path> targets;
    for (const FileToWrite& file : files)
        targets.push_back(replaceableTarget(folder / file.name, (folder / file.name).string()));
    // Subfolders the set needs and the folder lacks: created first, removed again on failure.
    std::vector<std::unique_ptr<PendingTemporary>> subfolders;
    for (const FileToWrite& file : files) {
        const fs::path parent = fs::path(file.name).parent_path();
        fs::path made = folder;
        for (const fs::path& part : parent) {
            made /= part;
            if (fs::exists(fs::symlink_status(made, ec))) {
                if (!fs::is_directory(made, ec))
                    throw Error((dir / parent).string() + ": expected a directory, found a file");
                continue;
            }
            if (!fs::create_directory(made, ec))
                throw Error("cannot create directory " + made.string() + ": " + (ec ? ec.message() : "it exists"));
            subfolders.push_back(std::make_unique<PendingTemporary>(made, true));
        }
    }
    std::vector<std::unique_ptr<PendingTemporary>> temporaries;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const FileToWrite& file = files[i];
        const fs::path& target = targets[i];
        temporaries.push_back(std::make_unique<PendingTemporary>(temporarySibling(target)));
        writeAndSync(temporaries.back()->path(), (folder / file.name).string(), file.content, file.mode,
            targetMode(target, file.mode));
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        const fs::path& target = targets[i];
        fs::rename(temporaries[i]->path(), target, ec);
        if (ec)
            throw Error(target.string() + ": cannot replace file: " + ec.message());
        temporaries[i]->keep();
    }
    for (auto& subfolder : subfolders)
        subfolder->keep();
    for (const FileToWrite& file : files) {
        if (fs::path(file.name).has_parent_path())
            syncDirectory((folder / file.name).parent_path());
    }
    syncDirectory(folder);
}

void writePathsAtomically(const std::vector<PathToWrite>& files)
{
    std::vector<fs::path> targets;
    for (const PathToWrite& file : files) {
        const fs::path target = replaceableTarget(withDirectory(file.path), file.path.string());
        for (const fs::path& earlier : targets) {
            if (earlier.lexically_normal() == target.lexically_normal())
                throw Error(file.path.string() + ": named for two outputs of one command");
        }
        targets.push_back(target);
    }
    std::vector<std::unique_ptr<PendingTemporary>> temporaries;
    for (std::size_t i = 0; i < files.size(); ++i) {
        temporaries.push_back(std::make_unique<PendingTemporary>(temporarySibling(targets[i])));
        writeAndSync(temporaries.back()->path(), files[i].path.string(), files[i].produce, files[i].mode,
            targetMode(targets[i], files[i].mode));
    }
    std::error_code ec;
    for (std::size_t i = 0; i < files.size(); ++i) {
        fs::rename(temporaries[i]->path(), targets[i], ec);
        if (ec)
            throw Error(files[i].path.string() + ": cannot replace file: " + ec.message());
        temporaries[i]->keep();
        syncDirectory(targets[i].parent_path());
    }
}

void removePendingTemporaries()
{
    for (PendingSlot& slot : g_pending) {
        if (slot.ready.load() && !slot.directory)
            ::unlink(slot.path);
    }
    // Folders last, the later ones first: a set's subfolders were registered after the folder
    // they lie in.
    for (int i = kPendingSlots - 1; i >= 0; --i) {
        if (g_pending[i].ready.load() && g_pending[i].directory)
            ::rmdir(g_pending[i].path);
    }
}

} // namespace stratex
