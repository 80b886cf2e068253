// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/main_window.h"

#include <memory>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/calibrate/calibrate_page.h"
#include "ui/common/theme.h"
#include "ui/page.h"
#include "ui/planner/planner_page.h"
#include "ui/profiles/profiles_page.h"
#include "ui/ranks/parallel_config_form.h"
#include "ui/ranks/ranks_page.h"
#include "ui/search/search_page.h"
#include "ui/timeline/timeline_page.h"

#include "controllers/planner_controller.h"
#include "controllers/search_controller.h"
#include "controllers/stratex_search_controller.h"
#include "controllers/timeline_sources.h"
#include "jobs/job_runner.h"

namespace stratex::ui {

namespace {
constexpr int kMaxRecentFiles = 10;
const QString kRecentKey = QStringLiteral("recentFiles");
} // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent)
    , m_sidebar(new QListWidget(this))
    , m_stack(new QStackedWidget(this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QToolButton(this))
    , m_options(options)
{
    // The platform appends the application's display name ("— Stratex").
    setWindowTitle(tr("Strategy Explorer"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/stratex.svg")));
    setAcceptDrops(true);

    m_sidebar->setObjectName(QStringLiteral("pageList"));
    m_sidebar->setAccessibleName(tr("Pages"));
    m_sidebar->setViewMode(QListView::IconMode);
    m_sidebar->setFlow(QListView::TopToBottom);
    m_sidebar->setMovement(QListView::Static);
    m_sidebar->setIconSize(QSize(32, 32));
    m_sidebar->setGridSize(QSize(84, 64));
    m_sidebar->setFixedWidth(92);
    m_sidebar->setSpacing(2);

    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_sidebar);
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);

    m_status->setObjectName(QStringLiteral("jobStatus"));
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Cancel the running job (Esc)"));
    m_cancel->setAccessibleName(tr("Cancel the running job"));
    m_cancel->setVisible(false);
    statusBar()->addPermanentWidget(m_status);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QToolButton::clicked, this, &MainWindow::cancelJobs);

    // In the order of the workflow: look at the profiles, search a strategy, see its ranks and its
    // pipeline, plan variable-length batches, calibrate the cost model on measured runs. The window
    // opens on the Search page.
    auto* profiles = new ProfilesPage(this);
    auto* search = new SearchPage(this);
    auto* ranksPage = new RanksPage(this);
    auto* timeline = new TimelinePage(this);
    auto* planner = new PlannerPage(this);
    auto* calibrate = new CalibratePage(this);
    addPage(profiles);
    addPage(search);
    addPage(ranksPage);
    addPage(timeline);
    addPage(planner);
    addPage(calibrate);
    // Timelines go from the controller that computed them to their owner, the Timeline page's
    // sources, in one hop; the window only follows them to that page.
    controllers::TimelineSources* sources = timeline->sources();
    const auto showTimeline
        = [sources](const controllers::TimelineRequest& request) { sources->showRequests({ request }); };
    const auto followTimeline = [this, timeline] { setCurrentPage(timeline->pageId()); };
    connect(search->controller(), &controllers::SearchController::timelineReady, sources, showTimeline);
    connect(search->stratexController(), &controllers::StratexSearchController::timelineReady, sources, showTimeline);
    connect(planner->controller(), &controllers::PlannerController::timelinesRequested, sources,
        &controllers::TimelineSources::showRequests);
    connect(search->controller(), &controllers::SearchController::timelineReady, this, followTimeline);
    connect(search->stratexController(), &controllers::StratexSearchController::timelineReady, this, followTimeline);
    connect(planner->controller(), &controllers::PlannerController::timelinesRequested, this, followTimeline);
    connect(search, &SearchPage::layerCostModelReady, planner, &PlannerPage::setSearchCostModel);
    connect(search, &SearchPage::profilesSearched, profiles, [profiles](const QString& dir) {
        if (dir != profiles->folder())
            profiles->showFolder(dir);
    });
    connect(profiles, &ProfilesPage::synthesized, search, [search](const QString& dir) { search->openProfiles(dir); });
    connect(search, &SearchPage::rankLayoutRequested, this, [this, ranksPage](const ranks::ParallelConfig& config) {
        ranksPage->form()->setConfig(config);
        setCurrentPage(ranksPage->pageId());
    });
    // The example's best plan fills the other pages without leaving the Search page.
    const auto showBestPlanViews
        = [ranksPage, sources](const ranks::ParallelConfig& config, const controllers::TimelineRequest& request) {
              ranksPage->form()->setConfig(config);
              sources->showRequests({ request });
          };
    connect(search->controller(), &controllers::SearchController::bestPlanViewsReady, this, showBestPlanViews);
    connect(search->stratexController(), &controllers::StratexSearchController::bestPlanViewsReady, this,
        showBestPlanViews);

    connect(m_sidebar, &QListWidget::currentRowChanged, this, [this](int row) {
        m_stack->setCurrentIndex(row);
        rebuildExportMenu();
    });
    createMenus();
    m_sidebar->setCurrentRow(int(m_pages.indexOf(search)));
    // The first window has the size the pages are laid out for (issue 24, finding 11: at the
    // window's own size hint, 1089 px wide before the pages fill, the Profiles charts' legends
    // were cut off). A saved geometry wins.
    resize(defaultSize().expandedTo(minimumSizeHint()));
    if (m_options.persistSettings)
        restoreSettings();
    if (m_options.startupExamples) {
        // The last session's profiles, else (first start, or the folder is gone) the example.
        if (!search->reopenLastProfiles())
            search->openExample();
        planner->compareModes();
    }
}

MainWindow::~MainWindow() = default;

void MainWindow::addPage(Page* page)
{
    m_pages << page;
    m_stack->addWidget(page);
    connect(page, &Page::fileOpened, this, [this, page](const QString& path) {
        setCurrentPage(page->pageId());
        rememberRecentFile(path);
        setWindowTitle(QFileInfo(path).fileName());
    });
    auto* item = new QListWidgetItem(page->icon(), page->title(), m_sidebar);
    item->setTextAlignment(Qt::AlignHCenter);
    item->setToolTip(page->title());
    connect(page, &Page::statusMessage, this, &MainWindow::showStatus);
    for (jobs::JobRunner* runner : page->jobRunners())
        watchJobs(runner);
}

Page* MainWindow::page(const QString& id) const
{
    for (Page* page : m_pages) {
        if (page->pageId() == id)
            return page;
    }
    return nullptr;
}

Page* MainWindow::currentPage() const
{
    return qobject_cast<Page*>(m_stack->currentWidget());
}

bool MainWindow::setCurrentPage(const QString& id)
{
    const int index = int(m_pages.indexOf(page(id)));
    if (index < 0)
        return false;
    m_sidebar->setCurrentRow(index);
    return true;
}

void MainWindow::createMenus()
{
    menuBar()->setAccessibleName(tr("Main menu"));
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openFileWithDialog);
    open->setShortcut(QKeySequence::Open);
    QAction* openFolder
        = file->addAction(tr("Open &Profiles Folder…"), this, &MainWindow::openProfilesFolderWithDialog);
    openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openFolder->setToolTip(tr("A folder of Galvatron profiles, measured or synthesized: searched on the Search page"));
    QAction* openStrategy = file->addAction(tr("Open &Strategy…"), this, &MainWindow::openStrategyWithDialog);
    openStrategy->setObjectName(QStringLiteral("openStrategyAction"));
    openStrategy->setToolTip(tr("A Galvatron or Stratex strategy JSON: costed and shown on the Search page"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    m_exportMenu = file->addMenu(tr("&Export"));
    file->addSeparator();
    // Enabled only while a job runs: otherwise Esc reaches the focused widget (the rank grid and
    // the timeline clear their selection with it).
    m_cancelAction = file->addAction(tr("&Cancel Running Jobs"), this, &MainWindow::cancelJobs);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setShortcutContext(Qt::WindowShortcut);
    m_cancelAction->setEnabled(false);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_pages.size(); ++i) {
        QAction* action = view->addAction(m_pages[i]->title(), this, [this, i] { m_sidebar->setCurrentRow(i); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    view->addSeparator();
    QMenu* themes = view->addMenu(tr("&Theme"));
    auto* group = new QActionGroup(this);
    const QString current = QSettings().value(QStringLiteral("theme"), QStringLiteral("system")).toString();
    for (Theme theme : { Theme::System, Theme::Light, Theme::Dark }) {
        const QString name = themeName(theme);
        QAction* action = themes->addAction(name == QLatin1String("system") ? tr("System")
                : name == QLatin1String("light")                            ? tr("Light")
                                                                            : tr("Dark"));
        action->setCheckable(true);
        action->setChecked(name == current);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [theme] {
            applyTheme(theme);
            QSettings().setValue(QStringLiteral("theme"), themeName(theme));
        });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* gettingStarted = help->addAction(tr("&Getting Started"), this, &MainWindow::showGettingStarted);
    gettingStarted->setObjectName(QStringLiteral("gettingStartedAction"));
    gettingStarted->setShortcut(QKeySequence::HelpContents);
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcutOverview);
    shortcuts->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    help->addAction(tr("&About Stratex"), this, [this] {
        QMessageBox::about(this, tr("About Stratex"),
            tr("<h3>Stratex %1</h3><p>Strategy explorer for distributed LLM training: Megatron rank grids and "
               "workload-tracer planning, strategy search and pipeline planning.</p>"
               "<p>Copyright © 2026 the Stratex developers. Licensed under the "
               "<a href=\"https://www.gnu.org/licenses/gpl-3.0.html\">GNU General Public License, version 3 or "
               "later</a>.</p>"
               "<p>Built on the published work of others, re-implemented from their papers, formats and "
               "results: <b>Galvatron</b> (PKU-DAIR: profile formats and strategy search), <b>DynaPipe</b> "
               "(micro-batching and pipeline planning), <b>Megatron-LM</b> (NVIDIA: rank groups and launch "
               "arguments) and <b>PaddleNLP</b> (its Galvatron port). Made with Qt and nlohmann/json.</p>")
                .arg(QStringLiteral(STRATEX_VERSION)));
    });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showGettingStarted()
{
    // The page ships in the resources: no network, no browser.
    if (auto* open = findChild<QDialog*>(QStringLiteral("gettingStartedDialog"))) {
        open->raise();
        open->activateWindow();
        return;
    }
    QFile file(QStringLiteral(":/resources/help/getting-started.md"));
    const QString text = file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll())
                                                        : tr("The getting-started page is missing from this build.");
    auto* dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("gettingStartedDialog"));
    dialog->setWindowTitle(tr("Getting Started"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* browser = new QTextBrowser(dialog);
    browser->setObjectName(QStringLiteral("gettingStartedText"));
    browser->setOpenExternalLinks(true);
    browser->setMarkdown(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(browser);
    layout->addWidget(buttons);
    dialog->resize(720, 640);
    // Not modal: the user reads it beside the window.
    dialog->show();
}

void MainWindow::rebuildExportMenu()
{
    if (!m_exportMenu)
        return;
    m_exportMenu->clear();
    if (Page* page = currentPage()) {
        for (QAction* action : page->exportActions())
            m_exportMenu->addAction(action);
    }
    m_exportMenu->setEnabled(!m_exportMenu->isEmpty());
}

void MainWindow::watchJobs(jobs::JobRunner* runner)
{
    m_runners << runner;
    connect(runner, &jobs::JobRunner::started, this, [this](const QString& title) {
        m_status->setText(title);
        updateJobIndicator();
    });
    connect(runner, &jobs::JobRunner::progressChanged, this, [this](int permille, const QString& message) {
        m_progress->setValue(permille);
        if (!message.isEmpty())
            m_progress->setToolTip(message);
    });
    connect(runner, &jobs::JobRunner::failed, this, [this](const QString& message) { showStatus(message); });
    connect(runner, &jobs::JobRunner::cancelled, this, [this] { showStatus(tr("Cancelled")); });
    connect(runner, &jobs::JobRunner::runningChanged, this, [this] { updateJobIndicator(); });
}

void MainWindow::updateJobIndicator()
{
    const bool busy = isBusy();
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    if (m_cancelAction)
        m_cancelAction->setEnabled(busy);
    if (busy)
        m_progress->setValue(0);
    else
        m_status->clear();
}

bool MainWindow::isBusy() const
{
    for (const jobs::JobRunner* runner : m_runners) {
        if (runner->isRunning())
            return true;
    }
    for (const Page* page : m_pages) {
        if (page->hasPendingWork())
            return true;
    }
    return false;
}

void MainWindow::whenIdle(std::function<void()> callback)
{
    // Polled rather than signalled: a finished job may schedule another (a layout change
    // re-plans the tracer), so "idle" must hold for two consecutive looks.
    auto* poll = new QTimer(this);
    auto quietLooks = std::make_shared<int>(0);
    connect(poll, &QTimer::timeout, this, [this, poll, quietLooks, callback = std::move(callback)] {
        *quietLooks = isBusy() ? 0 : *quietLooks + 1;
        if (*quietLooks < 2)
            return;
        poll->stop();
        poll->deleteLater();
        callback();
    });
    poll->start(25);
}

void MainWindow::cancelJobs()
{
    for (jobs::JobRunner* runner : m_runners)
        runner->cancel();
}

QList<QPair<QString, QString>> MainWindow::shortcutOverview() const
{
    QList<QPair<QString, QString>> rows;
    const std::function<void(const QList<QAction*>&, const QString&)> collect
        = [&](const QList<QAction*>& actions, const QString& prefix) {
              for (QAction* action : actions) {
                  const QString text = prefix + QString(action->text()).remove(QLatin1Char('&'));
                  if (action->menu())
                      collect(action->menu()->actions(), text + QStringLiteral(" › "));
                  else if (!action->shortcut().isEmpty())
                      rows.append({ action->shortcut().toString(QKeySequence::NativeText), text });
              }
          };
    collect(menuBar()->actions(), {});
    // The pages' own actions (the rank grid's zoom): active while the focus is on their page.
    for (const Page* page : m_pages)
        collect(page->actions(), page->title() + QStringLiteral(" › "));
    // Keys the widgets handle themselves.
    rows.append({ tr("W / S"), tr("Timeline: zoom in / out") });
    rows.append({ tr("A / D"), tr("Timeline: pan left / right") });
    rows.append({ tr("Ctrl+wheel"), tr("Timeline and rank grid: zoom at the pointer") });
    rows.append({ tr("0 or Home"), tr("Timeline: show the whole step") });
    rows.append({ tr("+ / −"), tr("Rank grid: zoom in / out") });
    rows.append({ tr("0"), tr("Rank grid: fit to the window") });
    return rows;
}

void MainWindow::showShortcutOverview()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Keyboard Shortcuts"));
    auto* table = new QTableWidget(&dialog);
    const QList<QPair<QString, QString>> rows = shortcutOverview();
    table->setColumnCount(2);
    table->setRowCount(int(rows.size()));
    table->setHorizontalHeaderLabels({ tr("Keys"), tr("Action") });
    for (int row = 0; row < rows.size(); ++row) {
        table->setItem(row, 0, new QTableWidgetItem(rows[row].first));
        table->setItem(row, 1, new QTableWidgetItem(rows[row].second));
    }
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeColumnsToContents();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog.resize(520, 480);
    dialog.exec();
}

void MainWindow::showStatus(const QString& message)
{
    statusBar()->showMessage(message, 8000);
}

bool MainWindow::openFile(const QString& path, QString* error)
{
    if (!QFileInfo::exists(path)) {
        if (error)
            *error = tr("%1: no such file").arg(path);
        return false;
    }
    for (Page* page : m_pages) {
        if (!page->canOpen(path))
            continue;
        // The page shows the file, or asks first; the title follows fileOpened, so it names only
        // what was loaded.
        if (!page->openFile(path, error))
            return false;
        setCurrentPage(page->pageId());
        return true;
    }
    if (error) {
        *error = QFileInfo(path).isDir()
            ? tr("%1: not a folder of Galvatron profiles (no computation_profiling_*.json in it)").arg(path)
            : tr("%1: no page opens this kind of file").arg(path);
    }
    return false;
}

void MainWindow::openFileWithDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open"), QString(),
        tr("Tracer batch configs (*.txt *.conf *.cfg);;Strategies and simulation cases (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!openFile(path, &error))
        QMessageBox::warning(this, tr("Open"), error);
}

void MainWindow::openProfilesFolderWithDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Profiles Folder"));
    if (dir.isEmpty())
        return;
    QString error;
    if (!openFile(dir, &error))
        QMessageBox::warning(this, tr("Open Profiles Folder"), error);
}

void MainWindow::openStrategyWithDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Strategy"), QString(), tr("Galvatron or Stratex strategies (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    auto* search = qobject_cast<SearchPage*>(page(QStringLiteral("search")));
    QString error;
    if (!search || !search->openStrategy(path, &error)) {
        QMessageBox::warning(this, tr("Open Strategy"), error);
        return;
    }
    setCurrentPage(search->pageId());
    rememberRecentFile(path);
    setWindowTitle(QFileInfo(path).fileName());
}

void MainWindow::rememberRecentFile(const QString& path)
{
    if (!m_options.persistSettings)
        return;
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    QStringList recent = QSettings().value(kRecentKey).toStringList();
    recent.erase(
        std::remove_if(recent.begin(), recent.end(), [](const QString& path) { return !QFileInfo::exists(path); }),
        recent.end());
    for (const QString& path : recent) {
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                [this, path] {
                    QString error;
                    if (!openFile(path, &error))
                        QMessageBox::warning(this, tr("Open"), error);
                })
            ->setToolTip(path);
    }
    if (recent.isEmpty())
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls()) {
        if (!url.isLocalFile())
            continue;
        QString error;
        if (!openFile(url.toLocalFile(), &error))
            showStatus(error);
    }
}

QSize MainWindow::defaultSize()
{
    // As `stratex --screenshot` (app/gui/main.cpp); the pages also fit 1280x800 (tst_no_cutoff).
    return { 1400, 900 };
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    for (Page* page : m_pages)
        page->restoreSettings(settings);
    setCurrentPage(settings.value(QStringLiteral("window/page")).toString());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    if (Page* page = currentPage())
        settings.setValue(QStringLiteral("window/page"), page->pageId());
    for (Page* page : m_pages)
        page->saveSettings(settings);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    cancelJobs();
    if (m_options.persistSettings)
        saveSettings();
    event->accept();
}

} // namespace stratex::ui
