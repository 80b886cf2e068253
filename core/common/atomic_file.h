// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stratex {

enum class FileMode { Regular, Executable };

// Writes the whole content to a temporary file next to `path`, flushes it to disk (fsync) and
// renames it over `path`, so a reader never sees a half-written file, and a failed write or a
// crash leaves the old file untouched. A file that exists keeps its permissions (Executable adds
// execute where it can be read); a new one gets the umask's. The temporary file is removed on
// failure, and by removePendingTemporaries() on a signal. Throws stratex::Error naming the file.
// Only a regular file (or nothing) is replaced: a directory, device, FIFO or socket is refused, so
// is a symbolic link to one of them or to nothing; a link to a regular file is followed (the file
// is replaced, the link kept).
void writeFileAtomically(
    const std::filesystem::path& path, std::string_view content, FileMode mode = FileMode::Regular);

// Streamed content: the producer calls the sink with consecutive pieces; they are written in
// 64 KB chunks, so a large file never has to be held in memory whole. Same atomicity and errors
// as above; an exception from the producer leaves the old file untouched and is rethrown.
using ContentSink = std::function<void(std::string_view)>;
using ContentProducer = std::function<void(const ContentSink&)>;
void writeFileAtomically(
    const std::filesystem::path& path, const ContentProducer& produce, FileMode mode = FileMode::Regular);

struct FileToWrite {
    // A path relative to the folder: a file name, or one inside subfolders ("configs/x.json"),
    // which are created with the set.
    std::string name;
    std::string content;
    FileMode mode = FileMode::Regular;
};

// Writes several files into `dir` as one set. A new folder is written as a temporary sibling and
// renamed into place: readers see all files or none. Into an existing folder, every file is written
// to its temporary first and the renames follow only when all were written, so a failure leaves the
// old set untouched (subfolders it created are removed again). Throws stratex::Error naming the
// file or folder, also for a name that is absolute or climbs out of the folder ("..").
void writeFilesAtomically(const std::filesystem::path& dir, const std::vector<FileToWrite>& files);

// One file of a command's outputs (`plan --trace T --plan P`, `search --out A --megatron-args B`).
struct PathToWrite {
    std::filesystem::path path;
    ContentProducer produce;
    FileMode mode = FileMode::Regular;
};

// Writes files at unrelated paths as one set: every target is checked (a regular file or
// nothing, as writeFileAtomically) and every temporary written before the first rename, so a
// failure (a missing folder, a full disk, a device as a target) leaves all of them untouched --
// `plan --trace T --plan MISSING/p.json` left T written (issue 26). Renames of regular files in
// the folders just written to do not fail in practice; should one, the files renamed before it
// stay replaced. Throws stratex::Error naming the file.
void writePathsAtomically(const std::vector<PathToWrite>& files);

// Removes the temporary files of the writes in progress. Async-signal-safe: for a signal handler
// that ends the process (the CLI's SIGINT / SIGTERM).
void removePendingTemporaries();

} // namespace stratex
