// SPDX-License-Identifier: GPL-3.0-or-later
// Every interactive widget of every page has a name a screen reader can say: walks each page's
// widget tree (and the window around the pages, and the Synthesize dialog) and fails on a field,
// button, list, table, chart or custom view without one. A button's text counts when it has a
// letter or digit in it ("−" and "+" alone do not).
#include <algorithm>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QChartView>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabBar>
#include <QTest>
#include <QTextEdit>

#include "ui/main_window.h"
#include "ui/page.h"
#include "ui/search/synthesize_dialog.h"

using namespace stratex;
using namespace stratex::ui;

namespace {

// Qt's own parts of a compound widget (a spin box's editor, a combo box's line edit, a table's
// headers and corner button, a line edit's clear button, scroll bars): the compound widget is
// what the reader names.
bool isPartOfAnother(const QWidget* widget)
{
    if (qobject_cast<const QScrollBar*>(widget) || qobject_cast<const QHeaderView*>(widget))
        return true;
    for (const QWidget* parent = widget->parentWidget(); parent; parent = parent->parentWidget()) {
        if (qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QComboBox*>(parent)
            || qobject_cast<const QLineEdit*>(parent) || qobject_cast<const QTabBar*>(parent)
            || qobject_cast<const QMenuBar*>(parent))
            return true;
        if (qobject_cast<const QAbstractItemView*>(parent) && qobject_cast<const QAbstractButton*>(widget))
            return true;
        if (qobject_cast<const QAbstractScrollArea*>(parent)
            && static_cast<const QAbstractScrollArea*>(parent)->viewport() == widget)
            return true;
    }
    return false;
}

bool isInteractive(const QWidget* widget)
{
    if (isPartOfAnother(widget))
        return false;
    // A plain scroll area only frames a form, whose fields are checked themselves; a label is
    // read by its text.
    if (qobject_cast<const QScrollArea*>(widget) || qobject_cast<const QLabel*>(widget))
        return false;
    return qobject_cast<const QAbstractButton*>(widget) || qobject_cast<const QLineEdit*>(widget)
        || qobject_cast<const QAbstractSpinBox*>(widget) || qobject_cast<const QComboBox*>(widget)
        || qobject_cast<const QAbstractItemView*>(widget) || qobject_cast<const QAbstractSlider*>(widget)
        || qobject_cast<const QTextEdit*>(widget) || qobject_cast<const QPlainTextEdit*>(widget)
        || qobject_cast<const QChartView*>(widget) || qobject_cast<const QTabBar*>(widget)
        || qobject_cast<const QMenuBar*>(widget)
        // Custom views (rank grid, timeline): they take the keyboard focus.
        || (widget->focusPolicy() & Qt::TabFocus) != 0
        // Custom views that answer the mouse (tooltips on hover, the layer strip).
        || widget->hasMouseTracking();
}

bool hasLetterOrDigit(const QString& text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) { return c.isLetterOrNumber(); });
}

// The name a screen reader says: the accessible name, or a button's text.
QString nameOf(const QWidget* widget)
{
    if (!widget->accessibleName().isEmpty())
        return widget->accessibleName();
    if (const auto* button = qobject_cast<const QAbstractButton*>(widget)) {
        const QString text = QString(button->text()).remove(QLatin1Char('&'));
        if (hasLetterOrDigit(text))
            return text;
    }
    return {};
}

QString describe(const QWidget* widget)
{
    QStringList path;
    for (const QWidget* w = widget; w; w = w->parentWidget()) {
        path.prepend(QStringLiteral("%1%2").arg(QString::fromLatin1(w->metaObject()->className()),
            w->objectName().isEmpty() ? QString() : QLatin1Char('#') + w->objectName()));
        if (qobject_cast<const Page*>(w))
            break;
    }
    return path.join(QStringLiteral(" > "));
}

// The unnamed interactive widgets under `root` (itself included), skipping `excluded` subtrees and
// widgets of other windows (popups).
QStringList unnamed(const QWidget* root, const QList<const QWidget*>& excluded = {})
{
    QStringList missing;
    QList<const QWidget*> widgets { root };
    for (const QWidget* child : root->findChildren<QWidget*>())
        widgets << child;
    for (const QWidget* widget : widgets) {
        if (widget->window() != root->window() && widget != root)
            continue;
        const bool inExcluded = std::any_of(excluded.begin(), excluded.end(),
            [widget](const QWidget* subtree) { return subtree == widget || subtree->isAncestorOf(widget); });
        if (inExcluded || !isInteractive(widget))
            continue;
        if (nameOf(widget).isEmpty())
            missing << describe(widget);
        else if (QAccessibleInterface* face = QAccessible::queryAccessibleInterface(const_cast<QWidget*>(widget));
                 !face || face->text(QAccessible::Name).isEmpty())
            missing << describe(widget) + QStringLiteral(" (named, but not to Qt's accessibility interface)");
    }
    return missing;
}

} // namespace

class TestAccessibility : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_window = new MainWindow(MainWindow::Options { false });
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
    }
    void cleanup()
    {
        delete m_window;
        m_window = nullptr;
    }

    void everyPageNamesItsWidgets_data()
    {
        QTest::addColumn<QString>("page");
        for (const char* page : { "profiles", "search", "ranks", "timeline", "planner", "calibrate" })
            QTest::newRow(page) << QString::fromLatin1(page);
    }
    void everyPageNamesItsWidgets()
    {
        QFETCH(QString, page);
        QVERIFY(m_window->setCurrentPage(page));
        const QStringList missing = unnamed(m_window->page(page));
        QVERIFY2(missing.isEmpty(),
            qPrintable(QStringLiteral("no accessible name:\n  ") + missing.join(QStringLiteral("\n  "))));
    }

    void theWindowAroundThePagesNamesItsWidgets()
    {
        QList<const QWidget*> pages;
        for (const Page* page : m_window->pages())
            pages << page;
        const QStringList missing = unnamed(m_window, pages);
        QVERIFY2(missing.isEmpty(),
            qPrintable(QStringLiteral("no accessible name:\n  ") + missing.join(QStringLiteral("\n  "))));
    }

    void theSynthesizeDialogNamesItsWidgets()
    {
        SynthesizeDialog dialog(m_window);
        const QStringList missing = unnamed(&dialog);
        QVERIFY2(missing.isEmpty(),
            qPrintable(QStringLiteral("no accessible name:\n  ") + missing.join(QStringLiteral("\n  "))));
    }

    // The check itself: a bare symbol button and an unnamed field are caught.
    void theCheckCatchesUnnamedWidgets_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("caught");
        QTest::newRow("symbol-button") << "symbol-button" << true;
        QTest::newRow("text-button") << "text-button" << false;
        QTest::newRow("unnamed-field") << "unnamed-field" << true;
        QTest::newRow("named-field") << "named-field" << false;
    }
    void theCheckCatchesUnnamedWidgets()
    {
        QFETCH(QString, kind);
        QFETCH(bool, caught);
        QWidget root;
        if (kind == QLatin1String("symbol-button"))
            new QPushButton(QStringLiteral("−"), &root);
        else if (kind == QLatin1String("text-button"))
            new QPushButton(QStringLiteral("Zoom out"), &root);
        else
            (new QLineEdit(&root))
                ->setAccessibleName(kind == QLatin1String("named-field") ? QStringLiteral("Folder") : QString());
        QCOMPARE(!unnamed(&root).isEmpty(), caught);
    }

private:
    MainWindow* m_window = nullptr;
};

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
