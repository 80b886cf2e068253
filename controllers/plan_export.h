// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include <QString>
#include <QStringList>

#include "core/export/plan_export.h"

namespace stratex::controllers {

// One export target (exporting::exportTargets) of one plan, ready to write: the Search page's
// File > Export for the selected plan of either engine.
struct PlanExport {
    exporting::ExportFormat target = exporting::ExportFormat::Megatron;
    // The plan it is, for the save dialog and the status bar: "llama3-70b — tp2 pp2 vpp5 cp2 …".
    QString identity;
    struct File {
        std::string path; // relative to the chosen folder for a set (exporting::exportSet), else empty
        exporting::ExportedFile exported;
    };
    std::vector<File> files; // one, or the set in exportSet's order
    // Every note of every file (exporting::ExportNote: the Megatron version does not fit the
    // memory, a per-layer choice the framework cannot express, ...), shown before writing.
    QStringList warnings;
};

// A name for the file (one file) or the folder (a set) to offer in the save dialog.
QString defaultPlanExportName(const PlanExport& planExport, const QString& fileName);

// Writes one file at `path`, or a set into the folder `path` (files at their relative paths), all
// or none (atomic_file.h). False with `error` naming the file or folder.
bool writePlanExport(const PlanExport& planExport, const QString& path, QString* error);

// What the status bar says once written: "Wrote megatron_args.sh for llama3-70b — tp2 pp2 …".
QString planExportWrittenMessage(const PlanExport& planExport, const QString& path);

} // namespace stratex::controllers
