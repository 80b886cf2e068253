// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/planner/planner_form.h"

#include <cmath>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>

#include "core/common/error.h"
#include "core/planner/planner_setting_table.h"
#include "ui/common/path_line_edit.h"

#include "controllers/planner_inputs.h"

namespace stratex::ui {

namespace {

QSpinBox* spin(QWidget* parent, int low, int high, int value, const QString& tip)
{
    auto* box = new QSpinBox(parent);
    box->setRange(low, high);
    box->setValue(value);
    box->setToolTip(tip);
    return box;
}

QWidget* withButton(QWidget* field, QPushButton* button, QWidget* parent)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(field, 1);
    layout->addWidget(button);
    return row;
}

} // namespace

PlannerForm::PlannerForm(QWidget* parent)
    : SettingsForm(parent)
    , m_costSource(new QComboBox(this))
    , m_costModel(new PathLineEdit(this))
    , m_lengthSource(new QComboBox(this))
    , m_lengthPages(new QStackedWidget(this))
    , m_mean(new QSlider(Qt::Horizontal, this))
    , m_sigma(new QSlider(Qt::Horizontal, this))
    , m_count(spin(this, 1, 65536, 256, tr("Samples in the global batch (the pool plan-compare draws batches from)")))
    , m_seed(spin(this, 0, 1 << 30, 1, tr("Seed of the length generator: same seed, same lengths")))
    , m_syntheticLabel(new QLabel(this))
    , m_lengthsFile(new PathLineEdit(this))
    , m_batches(new QLineEdit(QStringLiteral("16,32,64,128,256"), this))
    , m_compareSeeds(spin(this, 1, 16, 1,
          tr("Permutation seeds per compare batch: more than 1 plans each batch again with the next seeds "
             "and the chart shows each mode's makespan range over them (plan-compare --seeds)")))
{
    m_costSource->setObjectName(QStringLiteral("costModelSource"));
    m_costSource->addItem(tr("Bundled example (GPT 1.3B-like, estimated)"));
    m_costSource->addItem(tr("DynaPipe cost model file"));
    m_costSource->setToolTip(tr("Where per-layer times and memory come from"));
    m_costSource->setAccessibleName(tr("Cost model source"));
    // Sized to show the bundled example's name whole; a long item ("Galvatron profile of the last
    // search: …") is elided when closed and whole in the open list, so the form's width does not
    // follow it (issue 24 finding 11: the form was clipped at every size).
    m_costSource->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_costSource->setMinimumContentsLength(int(m_costSource->itemText(0).size()));
    m_costModel->setObjectName(QStringLiteral("costModelPath"));
    m_costModel->setPlaceholderText(tr("a DynaPipe cost model (.json)"));
    m_costModel->setToolTip(tr("A DynaPipe cost model in its JSON form"));
    m_costModel->setAccessibleName(tr("Cost model file"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    browse->setAccessibleName(tr("Browse for a cost model file"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Choose a cost model"), QString(), tr("DynaPipe cost models (*.json);;All files (*)"));
        if (!path.isEmpty())
            setCostModelPath(path);
    });

    m_lengthSource->setObjectName(QStringLiteral("lengthSource"));
    m_lengthSource->setAccessibleName(tr("Sample lengths source"));
    m_lengthSource->addItems({ tr("Synthetic (lognormal)"), tr("Lengths file") });
    m_syntheticLabel->setWordWrap(true);
    m_mean->setObjectName(QStringLiteral("meanSlider"));
    m_mean->setRange(30, 85); // ln(length) 3.0 .. 8.5
    m_mean->setValue(65);
    m_mean->setToolTip(tr("Mean of ln(length): the median sample length is e^mean"));
    m_mean->setAccessibleName(tr("Mean of the log sample length"));
    m_sigma->setObjectName(QStringLiteral("sigmaSlider"));
    m_sigma->setRange(0, 200);
    m_sigma->setValue(80);
    m_sigma->setToolTip(tr("Standard deviation of ln(length): how much lengths vary"));
    m_sigma->setAccessibleName(tr("Standard deviation of the log sample length"));
    m_count->setObjectName(QStringLiteral("sampleCount"));
    m_count->setAccessibleName(tr("Samples in the batch"));
    m_seed->setAccessibleName(tr("Seed of the length generator"));
    auto* synthetic = new QWidget(this);
    auto* syntheticForm = new QFormLayout(synthetic);
    syntheticForm->setContentsMargins(0, 0, 0, 0);
    syntheticForm->addRow(tr("ln(length) mean"), m_mean);
    syntheticForm->addRow(tr("ln(length) σ"), m_sigma);
    syntheticForm->addRow(tr("Samples"), m_count);
    syntheticForm->addRow(tr("Seed"), m_seed);
    syntheticForm->addRow(m_syntheticLabel);
    auto* fileBrowse = new QPushButton(tr("Browse…"), this);
    fileBrowse->setAccessibleName(tr("Browse for a lengths file"));
    connect(fileBrowse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Choose a lengths file"), QString(), tr("Lengths (*.txt *.json);;All files (*)"));
        if (!path.isEmpty())
            setLengthsFile(path);
    });
    m_lengthsFile->setPlaceholderText(tr("one length per line, or JSON"));
    m_lengthsFile->setAccessibleName(tr("Lengths file"));
    m_lengthPages->addWidget(synthetic);
    m_lengthPages->addWidget(withButton(m_lengthsFile, fileBrowse, this));

    m_batches->setObjectName(QStringLiteral("globalBatches"));
    m_batches->setAccessibleName(tr("Compare batches"));
    m_batches->setToolTip(tr("Global batches (samples) for the fast-vs-normal comparison, each the first B samples"));

    // The inputs first, then the planner settings of the table.
    QFormLayout* modelForm = groupLayout(tr("Cost model"));
    modelForm->addRow(tr("Source"), m_costSource);
    modelForm->addRow(tr("File"), withButton(m_costModel, browse, this));
    QFormLayout* lengthForm = groupLayout(tr("Sample lengths"));
    lengthForm->addRow(m_lengthSource);
    lengthForm->addRow(m_lengthPages);
    const auto& table = planner::plannerSettingTable();
    addSettings(table.specs(), table.values(planner::PlannerConfig {}));
    groupLayout(tr("Pipeline"))->addRow(tr("Compare batches"), m_batches);
    m_compareSeeds->setObjectName(QStringLiteral("compareSeeds"));
    m_compareSeeds->setAccessibleName(tr("Compare seeds"));
    groupLayout(tr("Pipeline"))->addRow(tr("Compare seeds"), m_compareSeeds);
    fieldAs<QComboBox>("mode")->setToolTip(fieldAs<QComboBox>("mode")->toolTip()
        + tr("\nThe mode of a single plan; Plan and Compare always run both normal and fast."));
    fieldAs<QDoubleSpinBox>("memory-mb")->setDecimals(0); // whole MB are precise enough
    // The page's starting pipeline: the bundled example's layers fit in 40 GB over 4 stages.
    setPipeline(4, 6, 40000);

    connect(m_lengthSource, &QComboBox::currentIndexChanged, m_lengthPages, &QStackedWidget::setCurrentIndex);
    connect(m_mean, &QSlider::valueChanged, this, &PlannerForm::updateSyntheticLabel);
    connect(m_sigma, &QSlider::valueChanged, this, &PlannerForm::updateSyntheticLabel);
    for (QSpinBox* box : { m_count, m_seed })
        connect(box, &QSpinBox::valueChanged, this, &PlannerForm::changed);
    connect(m_mean, &QSlider::valueChanged, this, &PlannerForm::changed);
    connect(m_sigma, &QSlider::valueChanged, this, &PlannerForm::changed);
    connect(m_lengthSource, &QComboBox::currentIndexChanged, this, &PlannerForm::changed);
    connect(m_costModel, &QLineEdit::textChanged, this, &PlannerForm::changed);
    connect(m_lengthsFile, &QLineEdit::textChanged, this, &PlannerForm::changed);
    connect(m_batches, &QLineEdit::textChanged, this, &PlannerForm::changed);
    connect(m_compareSeeds, &QSpinBox::valueChanged, this, &PlannerForm::changed);
    connect(m_costSource, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_costModel->setEnabled(index == int(CostModelSource::File));
        Q_EMIT changed();
    });
    m_costModel->setEnabled(false);
    updateSyntheticLabel();
}

void PlannerForm::updateSyntheticLabel()
{
    const double mean = m_mean->value() / 10.0;
    const double sigma = m_sigma->value() / 100.0;
    // The median of a lognormal is e^mean; 90 % of samples lie below e^(mean + 1.2816 sigma).
    m_syntheticLabel->setText(tr("mean %1, σ %2: median %3 tokens, 90 % below %4")
                                  .arg(QLocale::c().toString(mean, 'f', 1), QLocale::c().toString(sigma, 'f', 2))
                                  .arg(std::lround(std::exp(mean)))
                                  .arg(std::lround(std::min(4096.0, std::exp(mean + 1.2816 * sigma)))));
}

PlannerForm::CostModelSource PlannerForm::costModelSource() const
{
    return static_cast<CostModelSource>(m_costSource->currentIndex());
}

void PlannerForm::setSearchProfileAvailable(const QString& description)
{
    const QString label = tr("Galvatron profile of the last search: %1").arg(description);
    if (m_costSource->count() > int(CostModelSource::SearchProfile))
        m_costSource->setItemText(int(CostModelSource::SearchProfile), label);
    else
        m_costSource->addItem(label);
    m_costSource->setItemData(int(CostModelSource::SearchProfile),
        tr("Costs at the profiled sequence length, scaled linearly for other lengths; no selective recompute"),
        Qt::ToolTipRole);
}

QString PlannerForm::costModelPath() const
{
    const QString text = m_costModel->text().trimmed();
    return costModelSource() == CostModelSource::File && !text.isEmpty() ? text : controllers::bundledCostModelPath();
}

void PlannerForm::setCostModelPath(const QString& path)
{
    const bool bundled = path == controllers::bundledCostModelPath() || path.isEmpty();
    m_costSource->setCurrentIndex(int(bundled ? CostModelSource::Bundled : CostModelSource::File));
    m_costModel->setText(bundled ? QString() : path);
}

bool PlannerForm::syntheticLengths() const
{
    return m_lengthSource->currentIndex() == 0;
}

planner::SyntheticLengthSpec PlannerForm::syntheticSpec() const
{
    planner::SyntheticLengthSpec spec;
    spec.mean_log = m_mean->value() / 10.0;
    spec.sigma_log = m_sigma->value() / 100.0;
    spec.count = m_count->value();
    spec.seed = std::uint64_t(m_seed->value());
    return spec;
}

void PlannerForm::setSyntheticSpec(double meanLog, double sigmaLog, int count, int seed)
{
    m_lengthSource->setCurrentIndex(0);
    m_mean->setValue(int(std::lround(meanLog * 10)));
    m_sigma->setValue(int(std::lround(sigmaLog * 100)));
    m_count->setValue(count);
    m_seed->setValue(seed);
}

QString PlannerForm::lengthsFile() const
{
    return m_lengthsFile->text().trimmed();
}

void PlannerForm::setLengthsFile(const QString& path)
{
    m_lengthSource->setCurrentIndex(1);
    m_lengthsFile->setText(path);
}

planner::PlannerConfig PlannerForm::config() const
{
    return read(planner::plannerSettingTable(), planner::PlannerConfig {}, nullptr);
}

void PlannerForm::setConfig(const planner::PlannerConfig& config)
{
    write(planner::plannerSettingTable(), config);
}

void PlannerForm::setPipeline(int stages, int layersPerStage, double memoryMb)
{
    setValue("stages", std::int64_t(stages));
    setValue("layers-per-stage", std::int64_t(layersPerStage));
    setValue("memory-mb", memoryMb);
}

std::vector<int> PlannerForm::globalBatches() const
{
    std::vector<int> batches;
    for (const QString& part : m_batches->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (!ok || value <= 0)
            throw Error("compare batches: \"" + part.trimmed().toStdString() + "\" is not a positive integer");
        batches.push_back(value);
    }
    if (batches.empty())
        throw Error("compare batches: give at least one global batch, e.g. 16,32,64");
    return batches;
}

int PlannerForm::compareSeeds() const
{
    return m_compareSeeds->value();
}

void PlannerForm::setCompareSeeds(int seeds)
{
    m_compareSeeds->setValue(seeds);
}

void PlannerForm::setGlobalBatches(const QString& text)
{
    m_batches->setText(text);
}

} // namespace stratex::ui
