// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include <QMainWindow>

class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QToolButton;

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::ui {

class Page;

// The main window: a sidebar of pages, the pages, menus (File, View, Help) and a status bar that
// follows every page's background jobs (progress, message, cancel).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        // Restore settings at start and save them on close. Off for --screenshot runs and tests,
        // so they always show the bundled example and leave the user's settings alone.
        bool persistSettings = true;
        // Run the bundled examples' background work at start (the search of the bundled profile
        // set with its best plan's ranks and timeline, the Planner's fast-vs-normal comparison),
        // so a new user sees results at once. Off in tests that do not need it.
        bool startupExamples = false;
    };

    explicit MainWindow(Options options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // The size of the first window, before any saved geometry.
    static QSize defaultSize();

    QList<Page*> pages() const { return m_pages; }
    // Every shortcut of the window and its pages: (keys, what they do), for Help > Keyboard Shortcuts.
    QList<QPair<QString, QString>> shortcutOverview() const;
    Page* page(const QString& id) const;
    Page* currentPage() const;
    bool setCurrentPage(const QString& id);

    // Hands the file to the first page that can open it; false with `error` when none can.
    bool openFile(const QString& path, QString* error);

    bool isBusy() const;
    // Calls `callback` once no page has a job running (at once if idle), from the event loop.
    void whenIdle(std::function<void()> callback);

    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }

public Q_SLOTS:
    void openFileWithDialog();
    void openProfilesFolderWithDialog();
    // File > Open Strategy…: a Galvatron or Stratex strategy file, costed on the Search page.
    void openStrategyWithDialog();
    void cancelJobs();
    void showStatus(const QString& message);
    void showShortcutOverview();
    // Help > Getting Started: the page shipped in the resources, in a dialog beside the window.
    void showGettingStarted();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void addPage(Page* page);
    void createMenus();
    void watchJobs(jobs::JobRunner* runner);
    void updateJobIndicator();
    void rememberRecentFile(const QString& path);
    void rebuildRecentMenu();
    void rebuildExportMenu();
    void restoreSettings();
    void saveSettings() const;

    QListWidget* m_sidebar;
    QStackedWidget* m_stack;
    QList<Page*> m_pages;
    QList<jobs::JobRunner*> m_runners;
    QLabel* m_status;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_exportMenu = nullptr;
    QAction* m_cancelAction = nullptr;
    Options m_options;
};

} // namespace stratex::ui
