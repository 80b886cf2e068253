// SPDX-License-Identifier: GPL-3.0-or-later
// The light and dark themes (ui/common/theme.h): an unchecked check box or radio button must be
// seen (issue 24: in the dark theme its outline had the colour of the field inside it). The
// indicator is grabbed from the screen and its outline's contrast measured on the pixels, against
// the window around it and against the field inside it, as WCAG 2.1 measures it (relative
// luminance, success criterion 1.4.11: 3:1 for the boundary of a control).
#include <algorithm>
#include <cmath>
#include <map>

#include <QApplication>
#include <QCheckBox>
#include <QImage>
#include <QRadioButton>
#include <QStyle>
#include <QStyleOption>
#include <QTest>
#include <QVBoxLayout>
#include <QWidget>

#include "ui/common/theme.h"

using namespace stratex::ui;

namespace {

// WCAG 2.1 relative luminance of an sRGB colour.
double luminance(QRgb rgb)
{
    const auto linear = [](int channel) {
        const double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(qRed(rgb)) + 0.7152 * linear(qGreen(rgb)) + 0.0722 * linear(qBlue(rgb));
}

double contrast(QRgb a, QRgb b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The colour most pixels of `image` have: the window behind the control.
QRgb commonest(const QImage& image)
{
    std::map<QRgb, int> counts;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            ++counts[image.pixel(x, y)];
    }
    return std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
    })->first;
}

} // namespace

class TestTheme : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanupTestCase();
    void uncheckedIndicatorIsSeen_data();
    void uncheckedIndicatorIsSeen();
};

void TestTheme::cleanupTestCase()
{
    applyTheme(Theme::System);
}

void TestTheme::uncheckedIndicatorIsSeen_data()
{
    QTest::addColumn<QString>("theme");
    QTest::addColumn<bool>("radio");
    for (const QString& theme : { QStringLiteral("light"), QStringLiteral("dark") }) {
        QTest::newRow(qPrintable(theme + QStringLiteral(" check box"))) << theme << false;
        QTest::newRow(qPrintable(theme + QStringLiteral(" radio button"))) << theme << true;
    }
}

void TestTheme::uncheckedIndicatorIsSeen()
{
    QFETCH(QString, theme);
    QFETCH(bool, radio);
    applyTheme(themeFromName(theme));
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    QAbstractButton* button = radio ? static_cast<QAbstractButton*>(new QRadioButton(QStringLiteral("Interleaved")))
                                    : new QCheckBox(QStringLiteral("Interleaved"));
    layout->addWidget(button);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!button->isChecked());
    // Not focused: a focused box is outlined in the highlight colour.
    button->clearFocus();

    QStyleOptionButton option;
    option.initFrom(button);
    const QRect indicator = button->style()->subElementRect(
        radio ? QStyle::SE_RadioButtonIndicator : QStyle::SE_CheckBoxIndicator, &option, button);
    QVERIFY(indicator.width() >= 8 && indicator.height() >= 8);
    const QImage image = button->grab().toImage().convertToFormat(QImage::Format_RGB32);
    QVERIFY(QRect(QPoint(0, 0), image.size()).contains(indicator));

    const QRgb around = commonest(image);
    const QRgb inside = image.pixel(indicator.center());
    QCOMPARE(around, QApplication::palette().color(QPalette::Window).rgb());
    // The outline: the pixel of the indicator's edge (its outer three pixels) that stands out most
    // from the window.
    QRgb outline = around;
    for (int y = indicator.top(); y <= indicator.bottom(); ++y) {
        for (int x = indicator.left(); x <= indicator.right(); ++x) {
            const bool edge = x - indicator.left() < 3 || indicator.right() - x < 3 || y - indicator.top() < 3
                || indicator.bottom() - y < 3;
            if (edge && contrast(image.pixel(x, y), around) > contrast(outline, around))
                outline = image.pixel(x, y);
        }
    }
    const double againstWindow = contrast(outline, around);
    const double againstField = contrast(outline, inside);
    const QString seen = QStringLiteral("outline #%1 against window #%2: %3:1, against field #%4: %5:1")
                             .arg(outline & 0xffffff, 6, 16, QLatin1Char('0'))
                             .arg(around & 0xffffff, 6, 16, QLatin1Char('0'))
                             .arg(againstWindow, 0, 'f', 2)
                             .arg(inside & 0xffffff, 6, 16, QLatin1Char('0'))
                             .arg(againstField, 0, 'f', 2);
    qInfo().noquote() << seen;
    QVERIFY2(againstWindow >= 3.0 && againstField >= 3.0, qPrintable(seen));
}

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
