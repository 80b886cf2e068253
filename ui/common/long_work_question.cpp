// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/long_work_question.h"

#include <QMessageBox>
#include <QPushButton>

namespace stratex::ui {

QMessageBox* askToRunLongWork(
    QWidget* parent, const QString& title, const WorkEstimate& estimate, std::function<void()> run)
{
    if (auto* previous = parent->findChild<QMessageBox*>(QStringLiteral("longWorkQuestion"))) {
        previous->setObjectName(QString());
        previous->close();
    }
    auto* box = new QMessageBox(
        QMessageBox::Question, title, QString::fromStdString(estimate.describe()), QMessageBox::NoButton, parent);
    box->setObjectName(QStringLiteral("longWorkQuestion"));
    box->setInformativeText(QObject::tr("It runs in the background with progress, and you can cancel it at any "
                                        "time. Run anyway?"));
    QPushButton* runAnyway = box->addButton(QObject::tr("Run anyway"), QMessageBox::AcceptRole);
    runAnyway->setObjectName(QStringLiteral("runAnyway"));
    QPushButton* cancel = box->addButton(QMessageBox::Cancel);
    // Cancel is the default: Enter on a question about a long job must not start it.
    box->setDefaultButton(cancel);
    box->setEscapeButton(cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(box, &QMessageBox::buttonClicked, box, [runAnyway, run = std::move(run)](QAbstractButton* button) {
        if (button == runAnyway)
            run();
    });
    box->open();
    return box;
}

} // namespace stratex::ui
