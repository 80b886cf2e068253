// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/ranks_page.h"

#include <algorithm>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/ranks/batch_config.h"
#include "ui/common/image_export.h"
#include "ui/ranks/batch_config_model.h"
#include "ui/ranks/parallel_config_form.h"
#include "ui/ranks/rank_details.h"
#include "ui/ranks/rank_grid_view.h"
#include "ui/ranks/rank_grid_widget.h"
#include "ui/ranks/tracer_panel.h"

#include "controllers/file_routing.h"
#include "controllers/ranks_controller.h"
#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::ranks;

namespace {
constexpr int kExportMaxSide = 8192;
// Cells smaller than this at the fit open the overview.
constexpr int kReadableCellSize = 6;
constexpr int kOverviewWorld = 1024;

void fillKinds(QComboBox* box)
{
    for (GroupKind kind : kAllGroupKinds) {
        box->addItem(QString::fromUtf8(groupKindName(kind).data()), int(kind));
        box->setItemData(box->count() - 1, QString::fromUtf8(info(kind).description.data()), Qt::ToolTipRole);
    }
}

QString derivedText(const RankGrid& grid)
{
    const ParallelSizes& s = grid.sizes();
    return QObject::tr("DP %1 · expert-DP %2 · %3 node(s) · %4 ranks per stage")
        .arg(s.dp)
        .arg(s.edp)
        .arg(grid.nodeCount())
        .arg(grid.world() / s.pp);
}

std::vector<BatchConfig> bundledBatchConfigs()
{
    QFile file(QStringLiteral(":/examples/tracer-batch.txt"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return parseBatchConfigs(file.readAll().toStdString());
}
} // namespace

RanksPage::RanksPage(QWidget* parent)
    : Page(parent)
    , m_controller(new controllers::RanksController(this))
    , m_form(new ParallelConfigForm(this))
    , m_warnings(new QListWidget(this))
    , m_details(new RankDetails(this))
    , m_colourBy(new QComboBox(this))
    , m_highlight(new QComboBox(this))
    , m_grid(new RankGridWidget(this))
    , m_overview(new QCheckBox(tr("Overview"), this))
    , m_hoverLine(new QLabel(this))
    , m_tracer(new TracerPanel(m_controller, this))
    , m_exportImage(new QAction(tr("Rank Grid Image…"), this))
    , m_exportScript(new QAction(tr("Tracer Script…"), this))
{
    m_warnings->setObjectName(QStringLiteral("warningsList"));
    m_warnings->setAccessibleName(tr("Layout warnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setMaximumHeight(120);
    m_grid->setObjectName(QStringLiteral("rankGrid"));
    m_colourBy->setObjectName(QStringLiteral("colourByBox"));
    m_highlight->setObjectName(QStringLiteral("highlightBox"));
    fillKinds(m_colourBy);
    fillKinds(m_highlight);
    m_colourBy->setToolTip(tr("Colour every rank by its group of this kind"));
    m_colourBy->setAccessibleName(tr("Colour ranks by"));
    m_highlight->setToolTip(tr("When a rank is selected, highlight its group of this kind"));
    m_highlight->setAccessibleName(tr("Highlight the selected rank's group"));

    // Left: the form, warnings and the selected rank.
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    auto* configBox = new QGroupBox(tr("Parallel configuration"), left);
    auto* configLayout = new QVBoxLayout(configBox);
    configLayout->addWidget(m_form);
    leftLayout->addWidget(configBox);
    leftLayout->addWidget(new QLabel(tr("Warnings"), left));
    leftLayout->addWidget(m_warnings);
    leftLayout->addWidget(new QLabel(tr("Selected rank"), left));
    leftLayout->addWidget(m_details, 1);

    // Centre: grid toolbar and grid.
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(new QLabel(tr("Colour by"), centre));
    toolbar->addWidget(m_colourBy);
    toolbar->addWidget(new QLabel(tr("Highlight"), centre));
    toolbar->addWidget(m_highlight);
    m_overview->setObjectName(QStringLiteral("overviewBox"));
    m_overview->setToolTip(tr("One cell per tensor-parallel group, numbered by its first rank: for thousands of "
                              "ranks. Double-click a group to expand it into its ranks."));
    toolbar->addStretch();
    // Zoom and fit as actions of the page: their shortcuts work wherever the focus is on the page,
    // the buttons show their names, and Help > Keyboard Shortcuts lists them.
    const auto addTool = [&](const char* name, const QString& text, const QString& iconName,
                             const QList<QKeySequence>& shortcuts, const QString& tip, auto slot) {
        auto* action = new QAction(QIcon::fromTheme(iconName), text, this);
        action->setShortcuts(shortcuts);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        const QString keys = action->shortcut().toString(QKeySequence::NativeText);
        action->setToolTip(keys.isEmpty() ? tip : tr("%1 (%2)").arg(tip, keys));
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        auto* button = new QToolButton(centre);
        button->setObjectName(QString::fromLatin1(name));
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setAccessibleName(text);
        button->setAccessibleDescription(action->toolTip());
        toolbar->addWidget(button);
    };
    addTool("zoomOutButton", tr("Zoom out"), QStringLiteral("zoom-out"),
        QKeySequence::keyBindings(QKeySequence::ZoomOut), tr("Smaller cells; in the grid also − and Ctrl+wheel"),
        [this] { m_grid->zoomOut(); });
    addTool("zoomInButton", tr("Zoom in"), QStringLiteral("zoom-in"), QKeySequence::keyBindings(QKeySequence::ZoomIn),
        tr("Larger cells; in the grid also + and Ctrl+wheel"), [this] { m_grid->zoomIn(); });
    addTool("fitGridButton", tr("Fit"), QStringLiteral("zoom-fit-best"), { QKeySequence(Qt::CTRL | Qt::Key_0) },
        tr("Fit the grid to the window; in the grid also 0"), [this] { m_grid->zoomToFit(); });
    addTool("exportGridButton", tr("Export…"), QStringLiteral("document-save-as"), {},
        tr("Save the grid as PNG or SVG"), [this] { exportGridImageWithDialog(); });
    auto* legend = new QLabel(tr("Cells: ranks, coloured by group · bands: pipeline stages · thick lines: node "
                                 "boundaries · corner dot: traced by the workload tracer"),
        centre);
    legend->setWordWrap(true);
    // The hovered cell's place and groups, in words, at any zoom.
    m_hoverLine->setObjectName(QStringLiteral("hoverLine"));
    m_hoverLine->setTextFormat(Qt::PlainText);
    m_hoverLine->setWordWrap(true);
    m_hoverLine->setText(tr("Hover a cell for its rank and groups"));
    centreLayout->addLayout(toolbar);
    centreLayout->addWidget(m_grid, 1);
    // The overview switch beside the hover line, not in the toolbar: the page must fit 1280 px.
    auto* readingRow = new QHBoxLayout;
    readingRow->addWidget(m_hoverLine, 1);
    readingRow->addWidget(m_overview);
    centreLayout->addLayout(readingRow);
    centreLayout->addWidget(legend);

    auto* tracerBox = new QGroupBox(tr("Workload tracer: batch configs"), this);
    auto* tracerLayout = new QVBoxLayout(tracerBox);
    tracerLayout->addWidget(m_tracer);

    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(centre);
    vertical->addWidget(tracerBox);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 2);
    auto* horizontal = new QSplitter(Qt::Horizontal, this);
    horizontal->addWidget(left);
    horizontal->addWidget(vertical);
    horizontal->setStretchFactor(1, 1);
    horizontal->setSizes({ 300, 900 });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(horizontal);

    connect(m_form, &ParallelConfigForm::configChanged, this, [this] { m_controller->setLayout(m_form->config()); });
    connect(m_controller, &controllers::RanksController::viewReady, this, &RanksPage::showView);
    connect(m_controller, &controllers::RanksController::layoutFailed, this, &RanksPage::showLayoutFailure);
    connect(m_colourBy, &QComboBox::currentIndexChanged, this,
        [this] { m_grid->setColourKind(static_cast<GroupKind>(m_colourBy->currentData().toInt())); });
    connect(m_highlight, &QComboBox::currentIndexChanged, this,
        [this] { m_grid->setHighlightKind(static_cast<GroupKind>(m_highlight->currentData().toInt())); });
    connect(
        m_grid, &RankGridWidget::rankSelected, this, [this](int rank) { m_details->showRank(m_grid->view(), rank); });
    connect(m_grid, &RankGridWidget::rankHovered, this, &RanksPage::showHovered);
    connect(m_overview, &QCheckBox::toggled, this, [this](bool on) {
        m_grid->setOverview(on);
        m_grid->zoomToFit();
    });
    connect(m_grid, &RankGridWidget::overviewChanged, m_overview, [this](bool on) {
        const QSignalBlocker blocker(m_overview);
        m_overview->setChecked(on);
        showHovered(-1);
    });
    connect(m_details, &RankDetails::highlightKindRequested, this,
        [this](GroupKind kind) { m_highlight->setCurrentIndex(m_highlight->findData(int(kind))); });
    connect(m_tracer, &TracerPanel::configActivated, this, [this](int world, int pp, int tp) {
        ParallelConfig config = m_form->config();
        config.world = world;
        config.pp = pp;
        config.tp = tp;
        m_form->setConfig(config);
    });
    connect(m_tracer, &TracerPanel::statusMessage, this, &Page::statusMessage);
    connect(m_tracer, &TracerPanel::batchFileLoaded, this, &Page::fileOpened);
    connect(m_exportImage, &QAction::triggered, this, &RanksPage::exportGridImageWithDialog);
    connect(m_exportScript, &QAction::triggered, m_tracer, &TracerPanel::exportScriptWithDialog);

    m_tracer->model()->setConfigs(bundledBatchConfigs());
    m_controller->setLayout(m_form->config());
}

RanksPage::~RanksPage() = default;

QIcon RanksPage::icon() const
{
    return QIcon(QStringLiteral(":/icons/ranks.svg"));
}

QList<jobs::JobRunner*> RanksPage::jobRunners() const
{
    return m_controller->runners();
}

bool RanksPage::hasPendingWork() const
{
    return m_controller->hasPendingWork();
}

QList<QAction*> RanksPage::exportActions() const
{
    return { m_exportImage, m_exportScript };
}

void RanksPage::showLayoutFailure(const QString& message)
{
    m_form->setValidation(message, QString());
    m_warnings->clear();
    m_grid->setView(nullptr);
    m_details->showRank(nullptr, -1);
}

void RanksPage::showView(std::shared_ptr<const RankGridView> view)
{
    m_form->setValidation(QString(), derivedText(view->grid));
    m_warnings->clear();
    for (const LayoutWarning& warning : view->warnings) {
        auto* item = new QListWidgetItem(
            style()->standardIcon(warning.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                        : QStyle::SP_MessageBoxInformation),
            QString::fromStdString(warning.message), m_warnings);
        item->setToolTip(QString::fromStdString(warning.code));
    }
    if (view->warnings.empty())
        new QListWidgetItem(tr("No warnings for this layout"), m_warnings);
    // A new band shape (world or pipeline size changed) gets a fresh fit; other edits keep the zoom.
    const RankGridView* previous = m_grid->view();
    const bool refit
        = !previous || previous->ranksPerBand != view->ranksPerBand || previous->stages() != view->stages();
    if (refit) {
        // Thousands of ranks in cells too small to tell apart: the overview, one cell per TP group.
        m_grid->setView(view);
        // (A hidden grid's viewport has no real size yet: there the world size decides.)
        m_grid->setOverview(view->grid.sizes().tp > 1 && view->world() >= kOverviewWorld
            && (!m_grid->isVisible() || !m_grid->detailFits(kReadableCellSize)));
        m_grid->zoomToFit();
    } else {
        m_grid->setView(view);
    }
    m_overview->setEnabled(view->grid.sizes().tp > 1);
    m_details->showRank(m_grid->view(), m_grid->selectedRank());
}

void RanksPage::showHovered(int rank)
{
    const RankGridView* view = m_grid->view();
    if (!view || rank < 0) {
        m_hoverLine->setText(m_grid->isOverview()
                ? tr("Overview: one cell per TP group, numbered by its first rank. Hover a cell for its ranks; "
                     "double-click to expand it.")
                : tr("Hover a cell for its rank and groups"));
        return;
    }
    const RankGrid& grid = view->grid;
    const RankCoordinates c = grid.coordinates(rank);
    const std::vector<int> tp = grid.groupOf(GroupKind::Tp, rank);
    const auto [low, high] = std::minmax_element(tp.begin(), tp.end());
    const QString group = tr("TP group %1–%2").arg(*low).arg(*high);
    if (m_grid->isOverview())
        m_hoverLine->setText(
            tr("%1 · stage %2 · node %3 · DP %4 · double-click to expand").arg(group).arg(c.pp).arg(c.node).arg(c.dp));
    else
        m_hoverLine->setText(tr("Rank %1 · stage %2 · node %3 (local %4) · %5 · DP %6")
                                 .arg(rank)
                                 .arg(c.pp)
                                 .arg(c.node)
                                 .arg(c.localRank)
                                 .arg(group)
                                 .arg(c.dp));
}

bool RanksPage::exportGridImage(const QString& path, QString* error) const
{
    if (!m_grid->view()) {
        if (error)
            *error = tr("no valid rank grid to export");
        return false;
    }
    const int cell = m_grid->exportCellSize(kExportMaxSide);
    const QSize size = m_grid->exportSize(kExportMaxSide);
    return saveRendering(
        path, size, [&](QPainter& painter) { m_grid->renderAll(painter, cell); },
        tr("Rank grid, %1").arg(QString::fromStdString(describe(m_grid->view()->grid.config()))), error);
}

void RanksPage::exportGridImageWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export rank grid"), QStringLiteral("rank-grid.png"), imageFileFilter());
    if (path.isEmpty())
        return;
    QString error;
    if (exportGridImage(path, &error))
        Q_EMIT statusMessage(tr("Saved %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export rank grid"), error);
}

void RanksPage::saveSettings(QSettings& settings) const
{
    const ParallelConfig config = m_form->config();
    settings.beginGroup(QStringLiteral("ranks"));
    settings.setValue(QStringLiteral("world"), config.world);
    settings.setValue(QStringLiteral("tp"), config.tp);
    settings.setValue(QStringLiteral("pp"), config.pp);
    settings.setValue(QStringLiteral("cp"), config.cp);
    settings.setValue(QStringLiteral("ep"), config.ep);
    settings.setValue(QStringLiteral("etp"), config.etp);
    settings.setValue(QStringLiteral("order"), QString::fromStdString(config.order));
    settings.setValue(QStringLiteral("gpusPerNode"), config.gpusPerNode);
    settings.setValue(QStringLiteral("colourBy"), m_colourBy->currentText());
    settings.setValue(QStringLiteral("highlight"), m_highlight->currentText());
    const TracerSettings tracer = m_tracer->settings();
    settings.setValue(QStringLiteral("tracerConfigs"), m_tracer->model()->toLines());
    settings.setValue(QStringLiteral("tracerModel"), QString::fromStdString(tracer.model));
    settings.setValue(QStringLiteral("tracerMicroBatchSize"), tracer.microBatchSize);
    settings.setValue(QStringLiteral("tracerMicroBatches"), tracer.microBatches);
    settings.setValue(QStringLiteral("tracerGlobalBatch"), tracer.globalBatch);
    settings.setValue(QStringLiteral("tracerMoe"), tracer.selection == TraceSelection::Moe);
    settings.setValue(QStringLiteral("tracerCommand"), m_tracer->commandTemplate());
    settings.endGroup();
}

void RanksPage::restoreSettings(QSettings& settings)
{
    settings.beginGroup(QStringLiteral("ranks"));
    if (settings.contains(QStringLiteral("world"))) {
        ParallelConfig config;
        config.world = settings.value(QStringLiteral("world"), 64).toInt();
        config.tp = settings.value(QStringLiteral("tp"), 1).toInt();
        config.pp = settings.value(QStringLiteral("pp"), 1).toInt();
        config.cp = settings.value(QStringLiteral("cp"), 1).toInt();
        config.ep = settings.value(QStringLiteral("ep"), 1).toInt();
        config.etp = settings.value(QStringLiteral("etp"), 0).toInt();
        config.order
            = settings.value(QStringLiteral("order"), QString::fromLatin1(kDefaultOrder)).toString().toStdString();
        config.gpusPerNode = settings.value(QStringLiteral("gpusPerNode"), 8).toInt();
        m_form->setConfig(config);
    }
    if (const int index = m_colourBy->findText(settings.value(QStringLiteral("colourBy")).toString()); index >= 0)
        m_colourBy->setCurrentIndex(index);
    if (const int index = m_highlight->findText(settings.value(QStringLiteral("highlight")).toString()); index >= 0)
        m_highlight->setCurrentIndex(index);
    if (settings.contains(QStringLiteral("tracerConfigs"))) {
        std::vector<BatchConfig> configs;
        for (const QString& line : settings.value(QStringLiteral("tracerConfigs")).toStringList())
            configs.push_back(parseBatchConfigLine(line.toStdString()));
        m_tracer->model()->setConfigs(std::move(configs));
        TracerSettings tracer;
        tracer.model = settings.value(QStringLiteral("tracerModel"), QStringLiteral("485")).toString().toStdString();
        tracer.microBatchSize = settings.value(QStringLiteral("tracerMicroBatchSize"), 1).toInt();
        tracer.microBatches = settings.value(QStringLiteral("tracerMicroBatches"), 0).toInt();
        tracer.globalBatch = settings.value(QStringLiteral("tracerGlobalBatch"), 0).toInt();
        tracer.selection
            = settings.value(QStringLiteral("tracerMoe"), false).toBool() ? TraceSelection::Moe : TraceSelection::Dense;
        m_tracer->setSettings(tracer);
        m_tracer->setCommandTemplate(
            settings.value(QStringLiteral("tracerCommand"), m_tracer->commandTemplate()).toString());
    }
    settings.endGroup();
}

bool RanksPage::canOpen(const QString& path) const
{
    return controllers::ranksPageOpens(path);
}

bool RanksPage::openFile(const QString& path, QString* error)
{
    return m_tracer->openBatchFile(path, error);
}

} // namespace stratex::ui
