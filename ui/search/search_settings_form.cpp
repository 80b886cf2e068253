// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/search_settings_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/search/setting_info.h"

namespace stratex::ui {

using search::SearchSettings;

namespace {

QString toolTipFor(const char* flag)
{
    const search::SettingInfo* info = search::findSettingInfo(flag);
    if (!info)
        return {};
    QString tip = QString::fromUtf8(info->help.data(), qsizetype(info->help.size()));
    tip += QStringLiteral("\n(--%1").arg(QString::fromLatin1(flag));
    if (!info->galvatron.empty())
        tip += QStringLiteral(", Galvatron: %1")
                   .arg(QString::fromUtf8(info->galvatron.data(), qsizetype(info->galvatron.size())));
    return tip + QLatin1Char(')');
}

QFormLayout* formOf(QWidget* group)
{
    return static_cast<QFormLayout*>(group->layout());
}

QGroupBox* group(const QString& title, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    new QFormLayout(box);
    return box;
}

QWidget* pathField(QLineEdit* edit, const QString& dialogTitle, QWidget* parent)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* browse = new QPushButton(QObject::tr("Browse…"), row);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, dialogTitle] {
        const QString dir = QFileDialog::getExistingDirectory(edit, dialogTitle, edit->text());
        if (!dir.isEmpty())
            edit->setText(dir);
    });
    return row;
}

} // namespace

SearchSettingsForm::SearchSettingsForm(QWidget* parent)
    : QWidget(parent)
    , m_profilesDir(new QLineEdit(this))
    , m_hardwareDir(new QLineEdit(this))
    , m_modelName(new QLineEdit(this))
    , m_costmodelCoe(new QDoubleSpinBox(this))
    , m_threads(new QSpinBox(this))
    , m_topK(new QSpinBox(this))
{
    m_profilesDir->setObjectName(QStringLiteral("profilesDir"));
    m_profilesDir->setPlaceholderText(tr("folder with computation_/memory_profiling_*.json"));
    m_profilesDir->setToolTip(tr("Galvatron's model profiles, found by their file names (--profiles)"));
    m_hardwareDir->setObjectName(QStringLiteral("hardwareDir"));
    m_hardwareDir->setPlaceholderText(tr("same folder, or Galvatron's hardware_configs"));
    m_hardwareDir->setToolTip(tr("allreduce_bandwidth_*, p2p_bandwidth_*, overlap_coefficient.json and sp_time_* "
                                 "matching the cluster (--hardware)"));
    m_modelName->setPlaceholderText(tr("from the profile's file name"));
    m_modelName->setObjectName(QStringLiteral("modelName"));
    m_modelName->setToolTip(toolTipFor("model-name"));

    auto* profiles = group(tr("Profiles"), this);
    formOf(profiles)->addRow(tr("Model profiles"), pathField(m_profilesDir, tr("Model profiles folder"), this));
    formOf(profiles)->addRow(tr("Hardware profiles"), pathField(m_hardwareDir, tr("Hardware profiles folder"), this));
    formOf(profiles)->addRow(tr("Model name"), m_modelName);

    connect(m_profilesDir, &QLineEdit::textChanged, this, &SearchSettingsForm::adoptSynthesizedModel);

    auto* cluster = group(tr("Cluster"), this);
    addSpin(cluster, "num-nodes", tr("Nodes"), 1, 4096, 1);
    addSpin(cluster, "num-gpus-per-node", tr("GPUs per node"), 1, 64, 8);
    addSpin(cluster, "memory-constraint", tr("Memory per GPU (GB)"), 1, 1024, 38);

    auto* batch = group(tr("Batch"), this);
    addSpin(batch, "settle-bsz", tr("Global batch"), -1, 1 << 20, -1, tr("range below"));
    addSpin(batch, "min-bsz", tr("Range from"), 1, 1 << 20, 64);
    addSpin(batch, "max-bsz", tr("Range to"), 1, 1 << 20, 64);
    addSpin(batch, "bsz-scale", tr("Range step"), 1, 1 << 20, 8);
    addSpin(batch, "settle-chunk", tr("Micro-batches"), -1, 1 << 20, -1, tr("every divisor"));
    addCombo(batch, "uneven-batch", tr("Uneven batches"),
        { QStringLiteral("honest"), QStringLiteral("skip"), QStringLiteral("galvatron") });

    auto* model = group(tr("Model"), this);
    addSpin(model, "seq-length", tr("Sequence length"), 0, 1 << 22, 0, tr("from the profile"));
    addSpin(model, "hidden-size", tr("Hidden size"), 1, 1 << 20, 4096);
    addSpin(model, "num-layers", tr("Layers"), 1, 4096, 32);
    addSpin(model, "num-heads", tr("Attention heads"), 1, 4096, 32);
    addSpin(model, "vocab-size", tr("Vocabulary"), 1, 1 << 24, 32000);

    auto* space = group(tr("Search space"), this);
    addSpin(space, "max-tp-deg", tr("Max TP"), 1, 1024, 8);
    addSpin(space, "max-pp-deg", tr("Max PP"), 1, 1024, 8);
    addSpin(space, "max-sp-deg", tr("Max Ulysses SP"), 1, 1024, 8);
    addCheck(space, "disable-dp", tr("no data parallelism"));
    addCheck(space, "disable-tp", tr("no tensor parallelism"));
    addCheck(space, "disable-sp", tr("no Ulysses SP"));
    addCheck(space, "disable-pp", tr("no pipeline parallelism"));
    addCheck(space, "disable-ckpt", tr("no checkpointing"));
    addCheck(space, "disable-fsdp", tr("no ZeRO-3"));
    addCheck(space, "disable-embedding-lmhead-tp", tr("no vocab TP"));
    addCheck(space, "disable-embedding-lmhead-sp", tr("no vocab SP"));

    auto* training = group(tr("Training"), this);
    addCombo(training, "mixed-precision", tr("Precision"),
        { QStringLiteral("bf16"), QStringLiteral("fp16"), QStringLiteral("fp32") });
    addCombo(training, "default-dp-type", tr("Default DP"), { QStringLiteral("zero2"), QStringLiteral("ddp") });
    addCombo(training, "pipeline-type", tr("Pipeline"), { QStringLiteral("pipedream_flush"), QStringLiteral("gpipe") });
    addCheck(training, "async-grad-reduce", tr("async gradient reduce"))->setChecked(true);
    addCheck(training, "sequence-parallel", tr("Megatron sequence parallel"))->setChecked(true);
    addCheck(training, "global-memory-buffer", tr("global memory buffer"))->setChecked(true);

    auto* profiling = group(tr("Profiling and engine"), this);
    addCombo(profiling, "time-profile-mode", tr("Time profile"),
        { QStringLiteral("sequence"), QStringLiteral("batch"), QStringLiteral("static") });
    addCombo(profiling, "memory-profile-mode", tr("Memory profile"),
        { QStringLiteral("static"), QStringLiteral("sequence") });
    m_costmodelCoe->setRange(0.01, 100);
    m_costmodelCoe->setDecimals(3);
    m_costmodelCoe->setValue(1.0);
    m_costmodelCoe->setToolTip(toolTipFor("costmodel-coe"));
    formOf(profiling)->addRow(tr("Cost factor"), m_costmodelCoe);
    m_threads->setObjectName(QStringLiteral("threads"));
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("all cores (%1)").arg(QThread::idealThreadCount()));
    m_threads->setToolTip(tr("Search threads; results do not depend on it"));
    formOf(profiling)->addRow(tr("Threads"), m_threads);
    m_topK->setObjectName(QStringLiteral("topK"));
    m_topK->setRange(1, 1000);
    m_topK->setValue(20);
    m_topK->setToolTip(tr("Plans kept: the best per (pipeline degree, TP/SP mode, batch, micro-batches)"));
    formOf(profiling)->addRow(tr("Top plans"), m_topK);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QWidget* box : { profiles, cluster, batch, model, space, training, profiling })
        layout->addWidget(box);
    layout->addStretch();

    for (QLineEdit* edit : { m_profilesDir, m_hardwareDir, m_modelName })
        connect(edit, &QLineEdit::textChanged, this, &SearchSettingsForm::changed);
}

QSpinBox* SearchSettingsForm::addSpin(
    QWidget* group, const char* flag, const QString& label, int low, int high, int value, const QString& special)
{
    auto* box = new QSpinBox(group);
    box->setObjectName(QString::fromLatin1(flag));
    box->setRange(low, high);
    box->setValue(value);
    box->setToolTip(toolTipFor(flag));
    if (!special.isEmpty())
        box->setSpecialValueText(special);
    formOf(group)->addRow(label, box);
    m_spins[flag] = box;
    connect(box, &QSpinBox::valueChanged, this, &SearchSettingsForm::changed);
    return box;
}

QComboBox* SearchSettingsForm::addCombo(
    QWidget* group, const char* flag, const QString& label, const QStringList& items)
{
    auto* box = new QComboBox(group);
    box->setObjectName(QString::fromLatin1(flag));
    box->addItems(items);
    box->setToolTip(toolTipFor(flag));
    formOf(group)->addRow(label, box);
    m_combos[flag] = box;
    connect(box, &QComboBox::currentIndexChanged, this, &SearchSettingsForm::changed);
    return box;
}

QCheckBox* SearchSettingsForm::addCheck(QWidget* group, const char* flag, const QString& label)
{
    auto* box = new QCheckBox(label, group);
    box->setObjectName(QString::fromLatin1(flag));
    box->setToolTip(toolTipFor(flag));
    formOf(group)->addRow(box);
    m_checks[flag] = box;
    connect(box, &QCheckBox::toggled, this, &SearchSettingsForm::changed);
    return box;
}

QSpinBox* SearchSettingsForm::spinBox(const char* flag) const
{
    const auto it = m_spins.find(flag);
    return it == m_spins.end() ? nullptr : it->second;
}

QComboBox* SearchSettingsForm::comboBox(const char* flag) const
{
    const auto it = m_combos.find(flag);
    return it == m_combos.end() ? nullptr : it->second;
}

QCheckBox* SearchSettingsForm::checkBox(const char* flag) const
{
    const auto it = m_checks.find(flag);
    return it == m_checks.end() ? nullptr : it->second;
}

SearchSettings SearchSettingsForm::settings() const
{
    const auto spin = [this](const char* flag) { return spinBox(flag)->value(); };
    const auto combo = [this](const char* flag) { return comboBox(flag)->currentText().toStdString(); };
    const auto check = [this](const char* flag) { return checkBox(flag)->isChecked(); };
    SearchSettings s;
    s.num_nodes = spin("num-nodes");
    s.num_gpus_per_node = spin("num-gpus-per-node");
    s.memory_constraint_gb = spin("memory-constraint");
    s.settle_bsz = spin("settle-bsz");
    s.min_bsz = spin("min-bsz");
    s.max_bsz = spin("max-bsz");
    s.bsz_scale = spin("bsz-scale");
    s.settle_chunk = spin("settle-chunk");
    s.uneven_batch = search::parseUnevenBatch(combo("uneven-batch")).value_or(search::UnevenBatch::Honest);
    if (spin("seq-length") > 0)
        s.model.seq_length = spin("seq-length");
    s.model.hidden_size = spin("hidden-size");
    s.model.num_layers = spin("num-layers");
    s.model.num_heads = spin("num-heads");
    s.model.vocab_size = spin("vocab-size");
    if (!m_modelName->text().trimmed().isEmpty())
        s.model.name = m_modelName->text().trimmed().toStdString();
    s.max_tp_deg = spin("max-tp-deg");
    s.max_pp_deg = spin("max-pp-deg");
    s.max_sp_deg = spin("max-sp-deg");
    s.disable_dp = check("disable-dp");
    s.disable_tp = check("disable-tp");
    s.disable_sp = check("disable-sp");
    s.disable_pp = check("disable-pp");
    s.disable_ckpt = check("disable-ckpt");
    s.disable_fsdp = check("disable-fsdp");
    s.disable_embedding_lmhead_tp = check("disable-embedding-lmhead-tp");
    s.disable_embedding_lmhead_sp = check("disable-embedding-lmhead-sp");
    s.mixed_precision = cost::parseMixedPrecision(combo("mixed-precision")).value_or(cost::MixedPrecision::Bf16);
    s.default_dp_type = cost::parseDpType(combo("default-dp-type")).value_or(cost::DpType::Zero2);
    s.pipeline_type = cost::parsePipelineType(combo("pipeline-type")).value_or(cost::PipelineType::PipeDreamFlush);
    s.async_grad_reduce = check("async-grad-reduce");
    s.sequence_parallel = check("sequence-parallel");
    s.global_memory_buffer = check("global-memory-buffer");
    s.time_profile_mode
        = profile::parseTimeProfileMode(combo("time-profile-mode")).value_or(profile::TimeProfileMode::Sequence);
    s.memory_profile_mode
        = profile::parseMemoryProfileMode(combo("memory-profile-mode")).value_or(profile::MemoryProfileMode::Static);
    s.costmodel_coe = m_costmodelCoe->value();
    return s;
}

void SearchSettingsForm::setSettings(const SearchSettings& s)
{
    const auto setSpin = [this](const char* flag, int value) { spinBox(flag)->setValue(value); };
    const auto setCombo = [this](const char* flag, std::string_view value) {
        QComboBox* box = comboBox(flag);
        box->setCurrentIndex(std::max(0, box->findText(QString::fromUtf8(value.data(), qsizetype(value.size())))));
    };
    setSpin("num-nodes", s.num_nodes);
    setSpin("num-gpus-per-node", s.num_gpus_per_node);
    setSpin("memory-constraint", s.memory_constraint_gb);
    setSpin("settle-bsz", s.settle_bsz);
    setSpin("min-bsz", s.min_bsz);
    setSpin("max-bsz", s.max_bsz);
    setSpin("bsz-scale", s.bsz_scale);
    setSpin("settle-chunk", s.settle_chunk);
    setCombo("uneven-batch", search::unevenBatchName(s.uneven_batch));
    setSpin("hidden-size", s.model.hidden_size);
    setSpin("num-layers", s.model.num_layers);
    setSpin("num-heads", s.model.num_heads);
    setSpin("vocab-size", s.model.vocab_size);
    setSpin("max-tp-deg", s.max_tp_deg);
    setSpin("max-pp-deg", s.max_pp_deg);
    setSpin("max-sp-deg", s.max_sp_deg);
    checkBox("disable-dp")->setChecked(s.disable_dp);
    checkBox("disable-tp")->setChecked(s.disable_tp);
    checkBox("disable-sp")->setChecked(s.disable_sp);
    checkBox("disable-pp")->setChecked(s.disable_pp);
    checkBox("disable-ckpt")->setChecked(s.disable_ckpt);
    checkBox("disable-fsdp")->setChecked(s.disable_fsdp);
    checkBox("disable-embedding-lmhead-tp")->setChecked(s.disable_embedding_lmhead_tp);
    checkBox("disable-embedding-lmhead-sp")->setChecked(s.disable_embedding_lmhead_sp);
    setCombo("mixed-precision", cost::mixedPrecisionName(s.mixed_precision));
    setCombo("default-dp-type", cost::dpTypeName(s.default_dp_type));
    setCombo("pipeline-type", cost::pipelineTypeName(s.pipeline_type));
    checkBox("async-grad-reduce")->setChecked(s.async_grad_reduce);
    checkBox("sequence-parallel")->setChecked(s.sequence_parallel);
    checkBox("global-memory-buffer")->setChecked(s.global_memory_buffer);
    setCombo("time-profile-mode", profile::timeProfileModeName(s.time_profile_mode));
    setCombo("memory-profile-mode", profile::memoryProfileModeName(s.memory_profile_mode));
    m_costmodelCoe->setValue(s.costmodel_coe);
}

profile::ProfileDiscovery SearchSettingsForm::discovery() const
{
    profile::ProfileDiscovery request;
    request.profilesDir = m_profilesDir->text().trimmed().toStdString();
    request.hardwareDir = m_hardwareDir->text().trimmed().toStdString();
    request.modelName = m_modelName->text().trimmed().toStdString();
    return request;
}

search::ExplicitSettings SearchSettingsForm::explicitSettings() const
{
    search::ExplicitSettings given;
    given.seqLength = spinBox("seq-length")->value() > 0;
    given.modelName = !m_modelName->text().trimmed().isEmpty();
    given.numLayers = given.hiddenSize = given.numHeads = given.vocabSize = true;
    given.numNodes = given.gpusPerNode = given.mixedPrecision = true;
    return given;
}

void SearchSettingsForm::adoptSynthesizedModel(const QString& dir)
{
    std::optional<profile::synth::SynthesisRecord> record;
    try {
        record = profile::synth::readSynthesisRecord(dir.trimmed().toStdString());
    } catch (const Error&) {
        return; // the search reports a malformed folder when it loads it
    }
    if (!record)
        return;
    const profile::synth::ModelDescription& model = record->model;
    spinBox("seq-length")->setValue(model.seq_length);
    spinBox("hidden-size")->setValue(model.hidden_size);
    spinBox("num-layers")->setValue(model.num_layers);
    spinBox("num-heads")->setValue(model.num_heads);
    spinBox("vocab-size")->setValue(model.vocab_size);
    spinBox("num-nodes")->setValue(record->num_nodes);
    spinBox("num-gpus-per-node")->setValue(record->gpus_per_node);
    const int precision = comboBox("mixed-precision")->findText(QString::fromStdString(record->precision));
    if (precision >= 0)
        comboBox("mixed-precision")->setCurrentIndex(precision);
}

QString SearchSettingsForm::profilesDir() const
{
    return m_profilesDir->text().trimmed();
}

void SearchSettingsForm::setProfilesDir(const QString& dir)
{
    m_profilesDir->setText(dir);
}

void SearchSettingsForm::setHardwareDir(const QString& dir)
{
    m_hardwareDir->setText(dir);
}

int SearchSettingsForm::threads() const
{
    return m_threads->value();
}

int SearchSettingsForm::topK() const
{
    return m_topK->value();
}

} // namespace stratex::ui
