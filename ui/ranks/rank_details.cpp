// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/rank_details.h"

#include <QHeaderView>

#include "ui/ranks/rank_grid_view.h"

namespace stratex::ui {

using namespace stratex::ranks;

namespace {
constexpr int kKindRole = Qt::UserRole + 1;

QString membersText(const std::vector<int>& members)
{
    constexpr std::size_t kShown = 16;
    if (members.empty())
        return QStringLiteral("—");
    QStringList parts;
    for (std::size_t i = 0; i < std::min(members.size(), kShown); ++i)
        parts << QString::number(members[i]);
    if (members.size() > kShown)
        parts << QStringLiteral("…");
    return parts.join(QStringLiteral(", "));
}
} // namespace

RankDetails::RankDetails(QWidget* parent)
    : QTreeWidget(parent)
{
    setObjectName(QStringLiteral("rankDetails"));
    setAccessibleName(tr("Selected rank's groups"));
    setColumnCount(3);
    setHeaderLabels({ tr("Group"), tr("Size"), tr("Members") });
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && item->data(0, kKindRole).isValid())
            Q_EMIT highlightKindRequested(static_cast<GroupKind>(item->data(0, kKindRole).toInt()));
    });
    showRank(nullptr, -1);
}

void RankDetails::showRank(const RankGridView* view, int rank)
{
    clear();
    if (!view || rank < 0) {
        auto* hint = new QTreeWidgetItem(this, { tr("Click a rank to see its groups") });
        hint->setFlags(Qt::NoItemFlags);
        return;
    }
    const RankGrid& grid = view->grid;
    const RankCoordinates c = grid.coordinates(rank);
    new QTreeWidgetItem(
        this, { tr("Rank %1").arg(rank), QString(), tr("node %1, local rank %2").arg(c.node).arg(c.localRank) });
    new QTreeWidgetItem(this,
        { tr("Coordinates"), QString(),
            QStringLiteral("tp %1 · cp %2 · dp %3 · pp %4").arg(c.tp).arg(c.cp).arg(c.dp).arg(c.pp) });
    new QTreeWidgetItem(
        this, { tr("Expert"), QString(), QStringLiteral("etp %1 · ep %2 · edp %3").arg(c.etp).arg(c.ep).arg(c.edp) });
    for (GroupKind kind : kAllGroupKinds) {
        const std::vector<int> members = grid.groupOf(kind, rank);
        auto* item = new QTreeWidgetItem(this,
            { QString::fromUtf8(groupKindName(kind).data()),
                members.empty() ? QString() : QString::number(members.size()), membersText(members) });
        item->setData(0, kKindRole, int(kind));
        item->setToolTip(0, QString::fromUtf8(info(kind).description.data()));
        item->setToolTip(2, membersText(members));
    }
}

} // namespace stratex::ui
