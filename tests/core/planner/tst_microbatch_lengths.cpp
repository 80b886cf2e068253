// SPDX-License-Identifier: GPL-3.0-or-later
// Sample lengths: the documented RNG (known answers), the lognormal generator (syntax,
// determinism, distribution, clamping) and the lengths file formats with their errors.
#include <algorithm>
#include <cmath>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner_rng.h"

using namespace stratex;
using namespace stratex::planner;

class TestMicroBatchLengths : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rngKnownAnswers();
    void rngUniformAndBelow();
    void parsesSyntheticSpec_data();
    void parsesSyntheticSpec();
    void rejectsBadSpecs_data();
    void rejectsBadSpecs();
    void syntheticIsDeterministicAndLognormal();
    void syntheticEncoderDecoder();
    void gridLengthFilesMatchGenerator();
    void readsLengthFiles_data();
    void readsLengthFiles();
    void rejectsBadLengthFiles_data();
    void rejectsBadLengthFiles();
};

void TestMicroBatchLengths::rngKnownAnswers()
{
    // xoshiro256** seeded by SplitMix64, computed independently from the published algorithms.
    PlannerRng zero(0);
    QCOMPARE(zero.next(), 11091344671253066420ULL);
    QCOMPARE(zero.next(), 13793997310169335082ULL);
    QCOMPARE(zero.next(), 1900383378846508768ULL);
    PlannerRng answer(42);
    QCOMPARE(answer.next(), 1546998764402558742ULL);
    QCOMPARE(answer.next(), 6990951692964543102ULL);
    QCOMPARE(answer.next(), 12544586762248559009ULL);
}

void TestMicroBatchLengths::rngUniformAndBelow()
{
    PlannerRng rng(3);
    std::vector<int> counts(5, 0);
    double sum = 0;
    for (int i = 0; i < 50000; ++i) {
        const double u = rng.uniform();
        QVERIFY(u >= 0 && u < 1);
        sum += u;
        ++counts[rng.below(5)];
    }
    QVERIFY(std::fabs(sum / 50000 - 0.5) < 0.01);
    for (int c : counts)
        QVERIFY(std::abs(c - 10000) < 400);
    std::vector<int> values { 1, 2, 3, 4, 5, 6 };
    PlannerRng a(9);
    PlannerRng b(9);
    std::vector<int> first = values;
    std::vector<int> second = values;
    a.shuffle(first);
    b.shuffle(second);
    QCOMPARE(first, second);
    std::sort(first.begin(), first.end());
    QCOMPARE(first, values);
}

void TestMicroBatchLengths::parsesSyntheticSpec_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("sigma");
    QTest::addColumn<int>("count");
    QTest::addColumn<qulonglong>("seed");
    QTest::newRow("with-seed") << QStringLiteral("lognormal:5.5,0.8,256:7") << 5.5 << 0.8 << 256 << 7ULL;
    QTest::newRow("default-seed") << QStringLiteral("lognormal:6,1,64") << 6.0 << 1.0 << 64 << 0ULL;
    QTest::newRow("spaces") << QStringLiteral("lognormal: 5 , 0 , 8") << 5.0 << 0.0 << 8 << 0ULL;
}

void TestMicroBatchLengths::parsesSyntheticSpec()
{
    QFETCH(QString, text);
    QFETCH(double, mean);
    QFETCH(double, sigma);
    QFETCH(int, count);
    QFETCH(qulonglong, seed);
    const SyntheticLengthSpec spec = parseSyntheticLengthSpec(text.toStdString());
    QCOMPARE(spec.mean_log, mean);
    QCOMPARE(spec.sigma_log, sigma);
    QCOMPARE(spec.count, count);
    QCOMPARE(static_cast<qulonglong>(spec.seed), seed);
    QCOMPARE(parseSyntheticLengthSpec(spec.text()).count, count);
}

void TestMicroBatchLengths::rejectsBadSpecs_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");
    QTest::newRow("other-distribution") << QStringLiteral("normal:5,1,10") << QStringLiteral("unknown");
    QTest::newRow("two-numbers") << QStringLiteral("lognormal:5,1") << QStringLiteral("expected");
    QTest::newRow("negative-sigma") << QStringLiteral("lognormal:5,-1,10") << QStringLiteral("SIGMA");
    QTest::newRow("zero-count") << QStringLiteral("lognormal:5,1,0") << QStringLiteral("N must");
    QTest::newRow("fraction-count") << QStringLiteral("lognormal:5,1,2.5") << QStringLiteral("N must");
    QTest::newRow("mean-in-tokens") << QStringLiteral("lognormal:400,1,10") << QStringLiteral("ln(length)");
    QTest::newRow("bad-seed") << QStringLiteral("lognormal:5,1,10:x") << QStringLiteral("SEED");
    QTest::newRow("extra-part") << QStringLiteral("lognormal:5,1,10:1:2") << QStringLiteral("expected");
}

void TestMicroBatchLengths::rejectsBadSpecs()
{
    QFETCH(QString, text);
    QFETCH(QString, reason);
    try {
        parseSyntheticLengthSpec(text.toStdString());
        QFAIL("accepted");
    } catch (const Error& error) {
        QVERIFY2(QString::fromStdString(error.what()).contains(reason), error.what());
    }
}

void TestMicroBatchLengths::syntheticIsDeterministicAndLognormal()
{
    const SyntheticLengthSpec spec = parseSyntheticLengthSpec("lognormal:5.5,0.8,20001:11");
    const std::vector<Sample> samples = generateSyntheticSamples(spec, false);
    QCOMPARE(generateSyntheticSamples(spec, false), samples);
    QCOMPARE(samples.size(), std::size_t(20001));
    std::vector<int> lengths;
    double logSum = 0;
    for (const Sample& s : samples) {
        QCOMPARE(s.id, static_cast<int>(lengths.size()));
        QCOMPARE(s.decoder_seqlen, 0);
        QVERIFY(s.seqlen >= 8 && s.seqlen <= 4096);
        lengths.push_back(s.seqlen);
        logSum += std::log(s.seqlen);
    }
    std::nth_element(lengths.begin(), lengths.begin() + 10000, lengths.end());
    QVERIFY(std::fabs(lengths[10000] - std::exp(5.5)) < 0.04 * std::exp(5.5)); // median
    QVERIFY(std::fabs(logSum / 20001 - 5.5) < 0.03);
    SyntheticLengthSpec other = spec;
    other.seed = 12;
    QVERIFY(generateSyntheticSamples(other, false) != samples);
    // Clamping: a huge sigma piles samples at both bounds.
    const std::vector<Sample> wide = generateSyntheticSamples(parseSyntheticLengthSpec("lognormal:5,10,200"), false);
    QVERIFY(std::count_if(wide.begin(), wide.end(), [](const Sample& s) { return s.seqlen == 8; }) > 20);
    QVERIFY(std::count_if(wide.begin(), wide.end(), [](const Sample& s) { return s.seqlen == 4096; }) > 20);
}

void TestMicroBatchLengths::syntheticEncoderDecoder()
{
    const std::vector<Sample> samples
        = generateSyntheticSamples(parseSyntheticLengthSpec("lognormal:5,0.5,50:3"), true);
    int differing = 0;
    for (const Sample& s : samples) {
        QVERIFY(s.decoder_seqlen >= 8);
        differing += s.decoder_seqlen != s.seqlen;
    }
    QVERIFY(differing > 40);
}

void TestMicroBatchLengths::readsLengthFiles_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected"); // "len/dec;..."
    QTest::newRow("text-lines") << QStringLiteral("# lengths\n100\n\n200 # long\n  50\n")
                                << QStringLiteral("100/0;200/0;50/0");
    QTest::newRow("text-pairs") << QStringLiteral("100 20\n200,40\n300\t0\n") << QStringLiteral("100/20;200/40;300/0");
    QTest::newRow("json-array") << QStringLiteral("[5, 6, 7]") << QStringLiteral("5/0;6/0;7/0");
    QTest::newRow("json-pairs") << QStringLiteral("[[5, 1], [6, 2]]") << QStringLiteral("5/1;6/2");
    QTest::newRow("json-record") << QStringLiteral("{\"sample_lengths\": [9, 8], \"n_stages\": 4}")
                                 << QStringLiteral("9/0;8/0");
    QTest::newRow("json-record-targets") << QStringLiteral("{\"sample_lengths\": [9, 8], \"target_lengths\": [3, 0]}")
                                         << QStringLiteral("9/3;8/0");
}

void TestMicroBatchLengths::readsLengthFiles()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const std::vector<Sample> samples = parseSampleLengths(text.toStdString(), "lengths");
    QStringList parts;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        QCOMPARE(samples[i].id, static_cast<int>(i));
        parts << QStringLiteral("%1/%2").arg(samples[i].seqlen).arg(samples[i].decoder_seqlen);
    }
    QCOMPARE(parts.join(QLatin1Char(';')), expected);
}

void TestMicroBatchLengths::rejectsBadLengthFiles_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("where");
    QTest::newRow("word") << QStringLiteral("100\nabc\n") << QStringLiteral("line 2");
    QTest::newRow("zero") << QStringLiteral("100\n0\n") << QStringLiteral("line 2");
    QTest::newRow("three-numbers") << QStringLiteral("1 2 3\n") << QStringLiteral("line 1");
    QTest::newRow("negative-decoder") << QStringLiteral("5\n6 -1\n") << QStringLiteral("line 2");
    QTest::newRow("empty") << QStringLiteral("# nothing\n") << QString();
    QTest::newRow("json-string") << QStringLiteral("[1, \"2\"]") << QStringLiteral("/1");
    QTest::newRow("json-targets-length") << QStringLiteral("{\"sample_lengths\": [1, 2], \"target_lengths\": [1]}")
                                         << QStringLiteral("/target_lengths");
    QTest::newRow("json-no-lengths") << QStringLiteral("{\"lengths\": [1]}") << QStringLiteral("/sample_lengths");
    QTest::newRow("json-empty") << QStringLiteral("[]") << QString();
}

void TestMicroBatchLengths::rejectsBadLengthFiles()
{
    QFETCH(QString, text);
    QFETCH(QString, where);
    try {
        parseSampleLengths(text.toStdString(), "lengths.txt");
        QFAIL("accepted");
    } catch (const InputError& error) {
        QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("lengths.txt"));
        if (!where.isEmpty())
            QCOMPARE(QString::fromStdString(error.keyPath()), where);
    }
}

// The benchmark grid's lengths as files (tests/data/planner-grid), the inputs another planner
// (upstream DynaPipe) was given in docs/planner-vs-dynapipe.md: they must stay what
// stratex-bench and `plan --synthetic` generate, or that comparison is no longer side by side.
void TestMicroBatchLengths::gridLengthFilesMatchGenerator()
{
    for (int count : { 96, 256, 512, 1280 }) {
        const std::string name = "lognormal_5.5_0.8_" + std::to_string(count) + "_seed1.txt";
        const std::vector<Sample> fromFile
            = loadSampleLengths(std::string(STRATEX_TEST_DATA_DIR) + "/planner-grid/" + name);
        const std::vector<Sample> generated = generateSyntheticSamples(
            parseSyntheticLengthSpec("lognormal:5.5,0.8," + std::to_string(count) + ":1"), false);
        QCOMPARE(fromFile, generated);
    }
}

QTEST_GUILESS_MAIN(TestMicroBatchLengths)
#include "tst_microbatch_lengths.moc"
