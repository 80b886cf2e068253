// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QIcon>
#include <QList>
#include <QString>
#include <QWidget>

class QAction;
class QSettings;

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::ui {

// One page of the main window (Ranks, Search, Timeline, ...). The window lists pages in its
// sidebar, follows their jobs in the status bar, offers their export actions in File > Export and
// hands them files they can open.
class Page : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    virtual QString pageId() const = 0; // for --page NAME, e.g. "ranks"
    virtual QString title() const = 0;
    virtual QIcon icon() const { return {}; }
    virtual QList<jobs::JobRunner*> jobRunners() const { return {}; }
    // Work scheduled but not started yet (debounced edits): the page is not settled.
    virtual bool hasPendingWork() const { return false; }
    virtual QList<QAction*> exportActions() const { return {}; }
    virtual void saveSettings(QSettings&) const { }
    virtual void restoreSettings(QSettings&) { }
    // Whether this page can open the file; if so openFile() is called. openFile() is true when the
    // file is opened, or when the page first asks the user (it would replace their input);
    // fileOpened follows once the page shows the file (the window names it in its title).
    virtual bool canOpen(const QString&) const { return false; }
    virtual bool openFile(const QString&, QString* error)
    {
        if (error)
            *error = tr("this page opens no files");
        return false;
    }

Q_SIGNALS:
    void statusMessage(const QString& message);
    void fileOpened(const QString& path);
};

} // namespace stratex::ui
