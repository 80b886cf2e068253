// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/save_text_file.h"

#include <QSaveFile>

namespace stratex::controllers {

bool saveTextFile(const QString& path, const std::string& text, QString* error, bool executable)
{
    QSaveFile file(path);
    bool ok = file.open(QIODevice::WriteOnly);
    ok = ok && file.write(QByteArray::fromStdString(text)) == qint64(text.size());
    if (ok && executable)
        file.setPermissions(file.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeGroup | QFileDevice::ExeOther);
    ok = ok && file.commit();
    if (!ok && error)
        *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return ok;
}

} // namespace stratex::controllers
