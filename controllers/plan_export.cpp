// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/plan_export.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/export/export_set.h"

namespace stratex::controllers {

QString defaultPlanExportName(const PlanExport& planExport, const QString& fileName)
{
    if (planExport.files.size() > 1)
        return QStringLiteral("paddlenlp");
    return fileName;
}

bool writePlanExport(const PlanExport& planExport, const QString& path, QString* error)
{
    try {
        if (planExport.files.size() == 1 && planExport.files.front().path.empty()) {
            const exporting::ExportedFile& file = planExport.files.front().exported;
            writeFileAtomically(path.toStdString(), file.text,
                file.executable ? FileMode::Executable : FileMode::Regular);
            return true;
        }
        std::vector<FileToWrite> set;
        for (const PlanExport::File& file : planExport.files)
            set.push_back({ file.path, file.exported.text,
                file.exported.executable ? FileMode::Executable : FileMode::Regular });
        writeFilesAtomically(path.toStdString(), set);
        return true;
    } catch (const Error& failure) {
        if (error)
            *error = QString::fromUtf8(failure.what());
        return false;
    }
}

QString planExportWrittenMessage(const PlanExport& planExport, const QString& path)
{
    QString what = QFileInfo(path).fileName();
    if (planExport.files.size() > 1) {
        QStringList names;
        for (const PlanExport::File& file : planExport.files)
            names << QString::fromStdString(file.path);
        what = QStringLiteral("%1 (%2)").arg(QDir::toNativeSeparators(path), names.join(QStringLiteral(", ")));
    }
    QString message = QObject::tr("Wrote %1 for %2").arg(what, planExport.identity);
    if (!planExport.warnings.isEmpty())
        message += QObject::tr(" — %n warning(s)", nullptr, int(planExport.warnings.size()));
    return message;
}

} // namespace stratex::controllers
