// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/path_line_edit.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QToolTip>

namespace stratex::ui {

namespace {
constexpr int kTextMargin = 2; // QLineEdit's own horizontal margin inside its contents rect
}

PathLineEdit::PathLineEdit(QWidget* parent)
    : QLineEdit(parent)
{
}

bool PathLineEdit::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && displayedText() != text()) {
        const QString help = toolTip();
        QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(),
            help.isEmpty() ? text() : text() + QLatin1Char('\n') + help, this);
        return true;
    }
    return QLineEdit::event(event);
}

QRect PathLineEdit::textRect() const
{
    QStyleOptionFrame option;
    initStyleOption(&option);
    const QMargins margins = textMargins();
    return style()
        ->subElementRect(QStyle::SE_LineEditContents, &option, this)
        .adjusted(margins.left() + kTextMargin, margins.top(), -margins.right() - kTextMargin, -margins.bottom());
}

QString PathLineEdit::displayedText() const
{
    const QString path = text();
    if (hasFocus() || path.isEmpty() || echoMode() != QLineEdit::Normal)
        return path;
    return fontMetrics().elidedText(path, Qt::ElideMiddle, textRect().width());
}

void PathLineEdit::paintEvent(QPaintEvent* event)
{
    const QString shown = displayedText();
    if (shown == text()) {
        QLineEdit::paintEvent(event);
        return;
    }
    QPainter painter(this);
    QStyleOptionFrame option;
    initStyleOption(&option);
    style()->drawPrimitive(QStyle::PE_PanelLineEdit, &option, &painter, this);
    painter.setPen(palette().color(isEnabled() ? QPalette::Normal : QPalette::Disabled, QPalette::Text));
    painter.drawText(textRect(), Qt::AlignLeft | Qt::AlignVCenter, shown);
}

} // namespace stratex::ui
