// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/profiles/profiles_page.h"

#include <QChart>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/common/chart_style.h"
#include "ui/common/path_line_edit.h"
#include "ui/profiles/profile_charts.h"
#include "ui/search/synthesize_dialog.h"

#include "controllers/profiles_controller.h"
#include "jobs/job_runner.h"

namespace stratex::ui {

namespace {

PaletteChartView* chartView(QWidget* parent, const char* name, const QString& accessibleName)
{
    auto* view = new PaletteChartView(parent);
    view->setObjectName(QString::fromLatin1(name));
    view->setAccessibleName(accessibleName);
    view->setMinimumSize(320, 240);
    return view;
}

} // namespace

ProfilesPage::ProfilesPage(QWidget* parent)
    : Page(parent)
    , m_controller(new controllers::ProfilesController(this))
    , m_folder(new PathLineEdit(this))
    , m_summary(new QLabel(this))
    , m_batch(chartView(this, "batchTimeChart", tr("Forward time against batch size")))
    , m_sequence(chartView(this, "sequenceTimeChart", tr("Forward time against sequence length")))
    , m_memory(chartView(this, "layerMemoryChart", tr("Memory per layer by TP degree")))
    , m_bandwidth(chartView(this, "bandwidthChart", tr("Collective bandwidths")))
{
    m_folder->setObjectName(QStringLiteral("profilesFolder"));
    m_folder->setAccessibleName(tr("Profiles folder"));
    m_folder->setPlaceholderText(tr("folder with Galvatron's computation_/memory_profiling_*.json and hardware files"));
    m_summary->setObjectName(QStringLiteral("profilesSummary"));
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Open a folder of Galvatron profiles, or synthesize one from a model and a GPU."));
    auto* browse = new QPushButton(tr("Browse…"), this);
    browse->setObjectName(QStringLiteral("profilesBrowseButton"));
    browse->setAccessibleName(tr("Browse for a profiles folder"));
    auto* synthesize = new QPushButton(tr("Synthesize…"), this);
    synthesize->setObjectName(QStringLiteral("profilesSynthesizeButton"));
    synthesize->setToolTip(tr("Estimate a profile set from a model and a GPU (stratex-cli profile synth)"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Profiles"), this));
    bar->addWidget(m_folder, 1);
    bar->addWidget(browse);
    bar->addWidget(synthesize);
    auto* charts = new QGridLayout;
    charts->addWidget(m_batch, 0, 0);
    charts->addWidget(m_sequence, 0, 1);
    charts->addWidget(m_memory, 1, 0);
    charts->addWidget(m_bandwidth, 1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_summary);
    layout->addLayout(charts, 1);

    connect(m_folder, &QLineEdit::returnPressed, this, [this] { showFolder(folder()); });
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Profiles folder"), folder());
        if (!dir.isEmpty())
            showFolder(dir);
    });
    connect(synthesize, &QPushButton::clicked, this, [this] {
        SynthesizeDialog dialog(this);
        if (dialog.exec() == QDialog::Accepted) {
            showFolder(dialog.folder());
            Q_EMIT synthesized(dialog.folder());
        }
    });
    using controllers::ProfilesController;
    connect(m_controller, &ProfilesController::loadStarted, this,
        [this](const QString& dir) { m_summary->setText(tr("Reading %1…").arg(dir)); });
    connect(m_controller, &ProfilesController::overviewReady, this,
        [this](std::shared_ptr<const profile::ProfileOverview> overview) { show(overview.get()); });
    connect(m_controller, &ProfilesController::loadFailed, this, [this](const QString& message) {
        show(nullptr);
        m_summary->setText(tr("<b>Cannot read the profiles</b>: %1").arg(message.toHtmlEscaped()));
    });
    show(nullptr);
}

QIcon ProfilesPage::icon() const
{
    return QIcon(QStringLiteral(":/icons/profiles.svg"));
}

QList<jobs::JobRunner*> ProfilesPage::jobRunners() const
{
    return { m_controller->runner() };
}

QString ProfilesPage::folder() const
{
    return m_folder->text().trimmed();
}

QString ProfilesPage::summaryText() const
{
    return m_summary->text();
}

const profile::ProfileOverview* ProfilesPage::overview() const
{
    return m_controller->overview().get();
}

void ProfilesPage::showFolder(const QString& dir)
{
    m_folder->setText(dir);
    m_controller->load(dir);
}

void ProfilesPage::show(const profile::ProfileOverview* o)
{
    fillBatchTimeChart(m_batch->chart(), o);
    fillSequenceTimeChart(m_sequence->chart(), o);
    fillActivationChart(m_memory->chart(), o);
    fillBandwidthChart(m_bandwidth->chart(), o);
    for (PaletteChartView* view : { m_batch, m_sequence, m_memory, m_bandwidth })
        view->followPalette();
    if (!o)
        return;
    QString text = tr("<b>%1</b> at sequence length %2 · %3 group sizes of all-reduce, %4 pipeline degrees of p2p")
                       .arg(QString::fromStdString(o->model_name).toHtmlEscaped())
                       .arg(o->seq_length)
                       .arg(o->allreduce.size())
                       .arg(o->p2p_gb_per_s_by_stages.size());
    text += o->estimated ? tr("<br><b>Estimated</b> by stratex profile synth from the model's shape and the GPU's "
                              "datasheet (stratex_synthesis.json), not measured.")
                         : tr("<br>Measured by Galvatron's profilers.");
    m_summary->setText(text);
}

} // namespace stratex::ui
