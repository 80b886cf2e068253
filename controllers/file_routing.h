// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which page of the main window opens a file or folder given on the command line, chosen in File >
// Open or dropped on the window. The pages' canOpen() call these (QtCore only, no widgets), so the
// decision can be tested and fuzzed without a window (tests/fuzz/fuzz_gui_file_routing.cpp; issue
// 26: any file opens without a crash). MainWindow asks its pages in order, Search before Ranks
// before Timeline: fileRoute() gives the page that order picks.

#include <QString>

namespace stratex::controllers {

// The Search page: a Galvatron strategy file or a stratex plan file (by their keys), or a folder
// of Galvatron profiles (computation_profiling_*.json in it).
bool searchPageOpens(const QString& path);
// The Ranks page: batch configs of the tracer (*.txt, *.conf, *.cfg).
bool ranksPageOpens(const QString& path);
// The Timeline page: simulation cases (*.json with "cases"), and any *.json that does not parse,
// so that its parse error is reported there. Other JSON (a strategy, a profile) is no case file.
bool timelinePageOpens(const QString& path);

enum class FileRoute { None, Search, Ranks, Timeline };
FileRoute fileRoute(const QString& path);
// "search", "ranks", "timeline" (the pages' ids, as --page takes them); empty for None.
QString routePageId(FileRoute route);

} // namespace stratex::controllers
