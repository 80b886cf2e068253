// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/parallel_config_form.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "core/ranks/rank_grid.h"

namespace stratex::ui {

namespace {
QSpinBox* sizeBox(QWidget* parent, const QString& name, int maximum, const QString& accessibleName, const QString& tip)
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setAccessibleName(accessibleName);
    box->setRange(1, maximum);
    box->setToolTip(tip);
    box->setAccelerated(true);
    box->setKeyboardTracking(true); // validate as you type
    return box;
}
} // namespace

ParallelConfigForm::ParallelConfigForm(QWidget* parent)
    : QWidget(parent)
    , m_world(sizeBox(
          this, QStringLiteral("worldBox"), ranks::kMaxWorld, tr("World size"), tr("Number of GPUs (WORLD_SIZE)")))
    , m_tp(sizeBox(this, QStringLiteral("tpBox"), 1 << 16, tr("Tensor-parallel size"),
          tr("Tensor-parallel size (--tensor-model-parallel-size)")))
    , m_pp(sizeBox(this, QStringLiteral("ppBox"), 1 << 16, tr("Pipeline-parallel size"),
          tr("Pipeline-parallel size (--pipeline-model-parallel-size)")))
    , m_cp(sizeBox(this, QStringLiteral("cpBox"), 1 << 16, tr("Context-parallel size"),
          tr("Context-parallel size (--context-parallel-size)")))
    , m_ep(sizeBox(this, QStringLiteral("epBox"), 1 << 16, tr("Expert-parallel size"),
          tr("Expert-parallel size (--expert-model-parallel-size)")))
    , m_etp(sizeBox(this, QStringLiteral("etpBox"), 1 << 16, tr("Expert tensor-parallel size"),
          tr("Expert tensor-parallel size (--expert-tensor-parallel-size); \"= TP\" follows the TP size")))
    , m_order(new QComboBox(this))
    , m_gpusPerNode(sizeBox(this, QStringLiteral("gpusPerNodeBox"), 1024, tr("GPUs per node"),
          tr("GPUs per node: node boundaries and warnings")))
    , m_status(new QLabel(this))
{
    m_etp->setMinimum(0);
    m_etp->setSpecialValueText(tr("= TP"));
    m_order->setObjectName(QStringLiteral("orderBox"));
    m_order->setAccessibleName(tr("Rank order"));
    m_order->setEditable(true);
    m_order->addItem(QString::fromLatin1(ranks::kDefaultOrder));
    m_order->setItemData(0, tr("Megatron's default order"), Qt::ToolTipRole);
    m_order->addItem(QStringLiteral("tp-cp-ep-pp-dp"));
    m_order->setItemData(1, tr("--use-tp-pp-dp-mapping"), Qt::ToolTipRole);
    m_order->setToolTip(tr("Rank order: tokens tp, cp, ep, dp, pp joined by '-', leftmost varies fastest"));
    m_status->setObjectName(QStringLiteral("configStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("World size"), m_world);
    form->addRow(tr("TP"), m_tp);
    form->addRow(tr("PP"), m_pp);
    form->addRow(tr("CP"), m_cp);
    form->addRow(tr("EP"), m_ep);
    form->addRow(tr("Expert TP"), m_etp);
    form->addRow(tr("Order"), m_order);
    form->addRow(tr("GPUs per node"), m_gpusPerNode);
    form->addRow(m_status);

    for (QSpinBox* box : { m_world, m_tp, m_pp, m_cp, m_ep, m_etp, m_gpusPerNode }) {
        connect(box, &QSpinBox::valueChanged, this, [this] {
            if (!m_updating)
                Q_EMIT configChanged();
        });
    }
    connect(m_order, &QComboBox::currentTextChanged, this, [this] {
        if (!m_updating)
            Q_EMIT configChanged();
    });
    setConfig(ranks::ParallelConfig { 64, 4, 4, 1, 1, 0, ranks::kDefaultOrder, 8 });
}

ranks::ParallelConfig ParallelConfigForm::config() const
{
    ranks::ParallelConfig config;
    config.world = m_world->value();
    config.tp = m_tp->value();
    config.pp = m_pp->value();
    config.cp = m_cp->value();
    config.ep = m_ep->value();
    config.etp = m_etp->value();
    config.order = m_order->currentText().trimmed().toStdString();
    config.gpusPerNode = m_gpusPerNode->value();
    return config;
}

void ParallelConfigForm::setConfig(const ranks::ParallelConfig& config)
{
    m_updating = true;
    m_world->setValue(config.world);
    m_tp->setValue(config.tp);
    m_pp->setValue(config.pp);
    m_cp->setValue(config.cp);
    m_ep->setValue(config.ep);
    m_etp->setValue(config.etp);
    m_order->setCurrentText(QString::fromStdString(config.order));
    m_gpusPerNode->setValue(config.gpusPerNode);
    m_updating = false;
    Q_EMIT configChanged();
}

void ParallelConfigForm::setValidation(const QString& error, const QString& derived)
{
    m_valid = error.isEmpty();
    if (m_valid) {
        m_status->setStyleSheet(QString());
        m_status->setText(derived);
    } else {
        m_status->setStyleSheet(QStringLiteral("color: #c0392b;"));
        m_status->setText(error);
    }
}

QString ParallelConfigForm::validationText() const
{
    return m_status->text();
}

} // namespace stratex::ui
