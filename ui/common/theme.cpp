// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/theme.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QProxyStyle>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOption>

namespace stratex::ui {

namespace {
QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xdf, 0xe1, 0xe5);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x92));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Mid, QColor(0x4a, 0x4d, 0x52));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x7a, 0x7d, 0x82));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x7a, 0x7d, 0x82));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x7a, 0x7d, 0x82));
    return p;
}

// Fusion outlines an unchecked check box or radio button with the window colour darkened by 40 %
// (qfusionstyle_p_p.h, QFusionStylePrivate::outline): on the dark palette that is the colour of
// the field inside it (#1e1f22 against #1f2022), so an unchecked box is nearly invisible (issue
// 24), and on the light one it reaches 1.7:1 against the window. This style draws the outline
// again halfway between the text and the window, 3.8:1 or more against both the window and the
// field in both palettes: WCAG 2.1's 3:1 for the boundary of a control (success criterion 1.4.11).
// Keyboard focus keeps Fusion's highlighted outline.
class FusionWithVisibleIndicators : public QProxyStyle {
public:
    FusionWithVisibleIndicators()
        : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion")))
    {
    }

    void drawPrimitive(
        PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        const bool check = element == PE_IndicatorCheckBox;
        if ((!check && element != PE_IndicatorRadioButton)
            || (option->state.testFlag(State_HasFocus) && option->state.testFlag(State_KeyboardFocusChange)))
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(indicatorOutline(option->palette), 1.0));
        if (check) {
            // Fusion's own rectangle (QFusionStyle::drawPrimitive, PE_IndicatorCheckBox).
            painter->translate(0.5, 0.5);
            painter->drawRect(option->rect.adjusted(0, 0, -1, -1));
        } else {
            // Fusion's own circle (QFusionStyle::drawPrimitive, PE_IndicatorRadioButton).
            const QPointF centre = option->rect.center() + QPoint(1, 1);
            const qreal radius = (option->rect.width() + (option->rect.width() + 1) % 2) / 2.0 - 1;
            QPainterPath circle;
            circle.addEllipse(centre, radius, radius);
            painter->drawPath(circle);
        }
        painter->restore();
    }

private:
    static QColor indicatorOutline(const QPalette& palette)
    {
        const QColor text = palette.color(QPalette::WindowText);
        const QColor window = palette.color(QPalette::Window);
        return QColor(
            (text.red() + window.red()) / 2, (text.green() + window.green()) / 2, (text.blue() + window.blue()) / 2);
    }
};
} // namespace

void applyTheme(Theme theme)
{
    static const QString systemStyle = QApplication::style()->name();
    switch (theme) {
    case Theme::System:
        QApplication::setStyle(QStyleFactory::create(systemStyle));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case Theme::Light:
        QApplication::setStyle(new FusionWithVisibleIndicators);
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case Theme::Dark:
        QApplication::setStyle(new FusionWithVisibleIndicators);
        QApplication::setPalette(darkPalette());
        break;
    }
}

QString themeName(Theme theme)
{
    switch (theme) {
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::System:
        break;
    }
    return QStringLiteral("system");
}

Theme themeFromName(const QString& name)
{
    if (name == QLatin1String("light"))
        return Theme::Light;
    if (name == QLatin1String("dark"))
        return Theme::Dark;
    return Theme::System;
}

} // namespace stratex::ui
