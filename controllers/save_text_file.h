// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include <QString>

namespace stratex::controllers {

// Writes `text` to `path` all or nothing (QSaveFile: a temporary beside the target, synced and
// renamed over it on success), executable when asked. False with "path: reason" in `error`.
bool saveTextFile(const QString& path, const std::string& text, QString* error, bool executable = false);

} // namespace stratex::controllers
