// SPDX-License-Identifier: GPL-3.0-or-later
// The device-memory model against this project's own allocator measurements on one H200
// (resources/device-measurements/h200-2026-11-28/memory.json, written by
// tools/device-measure/measure.py; docs/device-measurements.md, "Memory"). Every row is an 8-layer
// GPT (hidden 2048, vocabulary 50304, tied LM head, LayerNorm, GELU MLP, learned positions) trained
// four steps on one GPU under autocast bf16 with fused AdamW, in its own process, under one of five
// settings, each with PYTORCH_CUDA_ALLOC_CONF expandable_segments off and on. For every row the same
// model and strategy go through the estimate (framework torchtitan: PyTorch's fp32 parameters,
// gradients and AdamW moments; FSDP2 as zero 3), and the suite compares the three numbers the run
// measured: the allocated peak (max_memory_allocated), the reserved peak (max_memory_reserved:
// allocated + the allocator's cache) and the device total (memory in use after the run: reserved +
// CUDA context + NCCL). Rows the model does not reproduce are held in a stated band with the reason
// (docs/device-measurements.md, "Memory"), so that a change that moves them shows.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/hardware/cluster_description.h"
#include "core/hardware/device_memory.h"
#include "core/hardware/efficiency.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/estimate.h"
#include "core/model/model_description.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

const std::filesystem::path kMeasured
    = std::filesystem::path(STRATEX_RESOURCES_DIR) / "device-measurements" / "h200-2026-11-28" / "memory.json";
constexpr double kMb = 1e6;

// A signed error band in percent of the measured value, and why a row sits there.
struct Band {
    double low_pct = 0;
    double high_pct = 0;
};

// What each setting is expected to reproduce: the allocated, reserved and device peaks, and the
// allocator's cache alone (reserved - allocated), each as a signed error band. The three plain
// settings (no recompute, no FSDP2) are those the shares are measured on; the others are held where
// they are, with the reason (docs/device-measurements.md, "Memory").
struct Expectation {
    Band allocated;
    Band reserved;
    Band device;
    Band cache;
    const char* reason;
};

// The plain rows: the cache is low because the model's churn leaves out the gradients (torchtitan's
// path keeps them for the step; measure.py's zero_grad(set_to_none=True) frees them), which the
// shares are measured over (device_memory.cpp kExpandableShare).
constexpr Expectation kPlain { { -3, 3 }, { -5, 5 }, { -5, 5 }, { -40, 0 },
    "the setting the allocator shares are measured on" };

const std::map<std::string, Expectation>& expectations()
{
    static const std::map<std::string, Expectation> table = {
        { "mbs2", kPlain },
        { "mbs4", kPlain },
        { "seq4096-mbs1", kPlain },
        // The estimate keeps the fp32 gradients (4 bytes per parameter) for the whole step; the run
        // allocates them in the backward, after its peak at the loss. Without recompute autocast's
        // cached bf16 weights (2 bytes per parameter, saved for the backward) make up half of it;
        // under recompute they are freed at autocast's exit: allocated +15 %. The cache measured
        // 1.6 GB (off and on), about two of the loss's fp32 vocabulary-sized buffers that the
        // backward's gradients then split, not a share of the churn (a replay of the requests
        // reproduces it, docs/memory-model.md): -87 % off, -98 % on. The two cancel in the
        // reserved and device peaks, which are right for the wrong reason.
        { "mbs2-recompute",
            { { 13, 17 }, { -2, 2 }, { -2, 2 }, { -100, -80 },
                "full recompute: gradients counted before the backward allocates them; the cache is the "
                "loss buffers' placement, not a share of the churn" } },
        // FSDP2 on one GPU without a MixedPrecisionPolicy: fp32 all-gathers (0.63 GB of all-gather
        // pool against the estimate's torchtitan bf16 0.32 GB), and FSDP2's reduce-scatter outputs,
        // the fp32 sharded gradients (all 2.04 GB on one GPU), stay in the reduce-scatter stream's
        // pool, which the compute stream cannot reuse; the estimate counts that pool under PP only.
        // A replay with the two streams gives reserved within +4 % (docs/memory-model.md).
        { "mbs2-fsdp2",
            { { -3, 3 }, { -16, -9 }, { -15, -8 }, { -90, -70 },
                "FSDP2's reduce-scatter stream pool (the fp32 gradient shards) is not counted without PP, "
                "and the run's all-gathers are fp32" } },
    };
    return table;
}

// The setting's name without the "-expandable" suffix: both allocator settings share a band.
std::string settingOf(const std::string& row)
{
    const std::string suffix = "-expandable";
    if (row.size() > suffix.size() && row.compare(row.size() - suffix.size(), suffix.size(), suffix) == 0)
        return row.substr(0, row.size() - suffix.size());
    return row;
}

nlohmann::json loadRuns()
{
    std::ifstream in(kMeasured);
    if (!in.good())
        throw std::runtime_error(kMeasured.string() + ": cannot be read");
    const nlohmann::json data = nlohmann::json::parse(in);
    if (!data.contains("runs") || !data["runs"].is_array() || data["runs"].empty())
        throw std::runtime_error(kMeasured.string() + ": \"runs\" must be a non-empty array");
    return data["runs"];
}

double number(const nlohmann::json& row, const char* key)
{
    if (!row.contains(key) || !row[key].is_number())
        throw std::runtime_error(kMeasured.string() + ": runs[" + row.value("name", std::string("?")) + "]." + key
            + " must be a number, found " + (row.contains(key) ? row[key].dump() : std::string("nothing")));
    return row[key].get<double>();
}

// measure.py build_gpt: per block LayerNorm, QKV and output projections with biases, a 4h GELU MLP;
// token and learned position embeddings, the LM head tied to the token embedding; no dropout.
model::ModelDescription measuredGpt(const nlohmann::json& row)
{
    model::ModelDescription m;
    m.name = "measure.py gpt";
    m.num_layers = int(number(row, "layers"));
    m.hidden_size = int(number(row, "hidden"));
    m.ffn_hidden_size = 4 * m.hidden_size;
    m.num_heads = int(number(row, "heads"));
    m.num_kv_heads = m.num_heads;
    m.vocab_size = int(number(row, "vocab"));
    m.seq_length = int(number(row, "seq"));
    m.mlp = model::MlpKind::Plain;
    m.norm = model::NormKind::LayerNorm;
    m.position = model::PositionEmbedding::Learned;
    m.tied_embeddings = true;
    m.hidden_dropout = 0.0;
    m.validate();
    return m;
}

// One GPU, one micro-batch per step; FSDP2 (fully_shard on every block and the root) as zero 3.
ParallelStrategy measuredStrategy(const nlohmann::json& row)
{
    ParallelStrategy s;
    s.framework = Framework::Torchtitan;
    s.micro_batch_size = int(number(row, "micro_batch"));
    s.global_batch_size = s.micro_batch_size;
    s.recompute = row.at("recompute").get<bool>() ? Recompute::Full : Recompute::None;
    s.zero = row.at("fsdp2").get<bool>() ? 3 : 0;
    return s;
}

// One H200 as measure.py's provenance reports it (141 GB: 139.8 GiB), the default efficiencies
// (the memory model reads only activation_fragmentation and memory_reserve_gb from them).
hardware::HardwareModel oneH200(double deviceTotalBytes)
{
    hardware::ClusterDescription cluster;
    cluster.gpu = { "h200-141gb", 989, deviceTotalBytes / (1024.0 * 1024 * 1024), 4800, 0.62, 360, 370, 50, 1.15 };
    cluster.num_nodes = 1;
    cluster.gpus_per_node = 1;
    return hardware::HardwareModel(cluster, hardware::Efficiency {});
}

double errorPct(double predicted, double measured)
{
    return 100.0 * (predicted - measured) / measured;
}

QString inBand(const char* what, double predictedMb, double measuredMb, const Band& band)
{
    const double e = errorPct(predictedMb, measuredMb);
    if (e >= band.low_pct && e <= band.high_pct)
        return {};
    return QString("%1: predicted %2 MB, measured %3 MB, %4 %, outside [%5, %6] %")
        .arg(what)
        .arg(predictedMb, 0, 'f', 0)
        .arg(measuredMb, 0, 'f', 0)
        .arg(e, 0, 'f', 1)
        .arg(band.low_pct)
        .arg(band.high_pct);
}

} // namespace

class TestDeviceMemoryH200 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // What the device holds beyond the reserved peak, measured the same in every row that opens no
    // NCCL communicator: the CUDA context with the step's kernel modules (cudaContextMb); the two
    // FSDP2 rows hold NCCL's fixed part on top (init_process_group("nccl") with one rank:
    // ncclProcessMb). Model-independent: device_used_after - max_memory_reserved.
    void beyondReserved_data()
    {
        QTest::addColumn<double>("beyondMb");
        QTest::addColumn<bool>("nccl");
        for (const nlohmann::json& row : loadRuns()) {
            const double beyond = number(row, "device_used_after_bytes") - number(row, "max_memory_reserved_bytes");
            QTest::newRow(row.at("name").get<std::string>().c_str()) << beyond / kMb << row.at("fsdp2").get<bool>();
        }
    }
    void beyondReserved()
    {
        QFETCH(double, beyondMb);
        QFETCH(bool, nccl);
        const double modelled = hardware::cudaContextMb() + (nccl ? hardware::ncclProcessMb() : 0.0);
        QVERIFY2(std::abs(modelled - beyondMb) < 0.5,
            qPrintable(QString("modelled %1 MB, measured %2 MB").arg(modelled).arg(beyondMb)));
    }

    // The allocator's shares, model-independent: on the plain rows (no recompute, no FSDP2) the
    // cache (reserved - allocated) over the step's churn, the allocated peak less the tensors alive
    // through the whole step (fp32 parameters and AdamW's two fp32 moments: 12 bytes per parameter;
    // activations, the loss's buffers, autocast's bf16 weights and the gradients, which
    // zero_grad(set_to_none=True) frees, are allocated and freed every step). Their mean is the
    // model's share (Efficiency's activation_fragmentation - 1 without expandable segments,
    // allocatorCacheMb's with them), to a quarter point; each row lies within 1 point (off) or 0.3
    // point (on) of it.
    void allocatorShares_data()
    {
        QTest::addColumn<bool>("expandable");
        QTest::addColumn<double>("sharePct");
        for (const nlohmann::json& row : loadRuns()) {
            if (row.at("recompute").get<bool>() || row.at("fsdp2").get<bool>())
                continue;
            const double allocated = number(row, "max_memory_allocated_bytes");
            const double churn = allocated - 12 * number(row, "parameters");
            const double cache = number(row, "max_memory_reserved_bytes") - allocated;
            QTest::newRow(row.at("name").get<std::string>().c_str())
                << row.at("expandable_segments").get<bool>() << 100 * cache / churn;
        }
    }
    void allocatorShares()
    {
        QFETCH(bool, expandable);
        QFETCH(double, sharePct);
        const double fragmentation = hardware::Efficiency {}.activation_fragmentation;
        const double modelPct = hardware::allocatorCacheMb(1000, fragmentation, expandable) / 10;
        QVERIFY2(std::abs(sharePct - modelPct) <= (expandable ? 0.3 : 1.0),
            qPrintable(QString("measured %1 %, model %2 %").arg(sharePct).arg(modelPct)));
    }
    void allocatorSharesAreTheMean()
    {
        double sum[2] = { 0, 0 };
        int count[2] = { 0, 0 };
        for (const nlohmann::json& row : loadRuns()) {
            if (row.at("recompute").get<bool>() || row.at("fsdp2").get<bool>())
                continue;
            const double allocated = number(row, "max_memory_allocated_bytes");
            const int on = row.at("expandable_segments").get<bool>() ? 1 : 0;
            sum[on] += (number(row, "max_memory_reserved_bytes") - allocated)
                / (allocated - 12 * number(row, "parameters"));
            ++count[on];
        }
        QCOMPARE(count[0], 3);
        QCOMPARE(count[1], 3);
        const double fragmentation = hardware::Efficiency {}.activation_fragmentation;
        for (const int on : { 0, 1 }) {
            const double modelled = hardware::allocatorCacheMb(1000, fragmentation, on == 1) / 1000;
            // 6.81 % rounded to 1.07; 1.12 % (kExpandableShare) as measured
            QVERIFY2(std::abs(sum[on] / count[on] - modelled) < 0.0025,
                qPrintable(QString("mean %1, model %2").arg(sum[on] / count[on]).arg(modelled)));
        }
    }

    // Every row through the estimate: allocated, reserved and device peaks against the measured
    // ones, each within the band its setting states (expectations()).
    void rows_data()
    {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<bool>("expandable");
        QTest::addColumn<double>("allocatedMb");
        QTest::addColumn<double>("reservedMb");
        QTest::addColumn<double>("deviceMb");
        QTest::addColumn<double>("totalBytes");
        QTest::addColumn<QByteArray>("row");
        for (const nlohmann::json& row : loadRuns()) {
            const std::string name = row.at("name").get<std::string>();
            QTest::newRow(name.c_str()) << QString::fromStdString(settingOf(name))
                                        << row.at("expandable_segments").get<bool>()
                                        << number(row, "max_memory_allocated_bytes") / kMb
                                        << number(row, "max_memory_reserved_bytes") / kMb
                                        << number(row, "device_used_after_bytes") / kMb
                                        << number(row, "device_total_bytes") << QByteArray::fromStdString(row.dump());
        }
    }
    void rows()
    {
        QFETCH(QString, setting);
        QFETCH(bool, expandable);
        QFETCH(double, allocatedMb);
        QFETCH(double, reservedMb);
        QFETCH(double, deviceMb);
        QFETCH(double, totalBytes);
        QFETCH(QByteArray, row);
        const auto found = expectations().find(setting.toStdString());
        QVERIFY2(found != expectations().end(),
            qPrintable("memory.json has a setting with no stated band here: " + setting));
        const Expectation& expected = found->second;
        const nlohmann::json measured = nlohmann::json::parse(row.toStdString());
        EstimateOptions options;
        options.expandable_segments = expandable;
        const Estimate e
            = estimate(measuredGpt(measured), measuredStrategy(measured), oneH200(totalBytes), options);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QCOMPARE(e.stages.size(), std::size_t(1));
        const StageMemory& m = e.stages.front().memory;
        // A one-GPU plan opens no NCCL group; the FSDP2 rows' process did (init_process_group with
        // one rank), so their device total holds NCCL's fixed part, as any multi-GPU rank's does.
        const double ncclMb = measured.at("fsdp2").get<bool>() ? hardware::ncclProcessMb() : 0.0;
        const double predictedDevice = m.totalMb() + ncclMb;
        qInfo("allocated %.0f / %.0f MB (%+.1f %%), cache %.0f / %.0f MB (%+.0f %%), reserved %+.1f %%, device %+.1f %%",
            m.allocatedMb(), allocatedMb, errorPct(m.allocatedMb(), allocatedMb), m.allocator_cache_mb,
            reservedMb - allocatedMb, errorPct(m.allocator_cache_mb, reservedMb - allocatedMb),
            errorPct(m.reservedMb(), reservedMb), errorPct(predictedDevice, deviceMb));
        QString failures;
        failures += inBand("allocated", m.allocatedMb(), allocatedMb, expected.allocated);
        failures += inBand(" cache", m.allocator_cache_mb, reservedMb - allocatedMb, expected.cache);
        failures += inBand(" reserved", m.reservedMb(), reservedMb, expected.reserved);
        failures += inBand(" device", predictedDevice, deviceMb, expected.device);
        QVERIFY2(failures.isEmpty(), qPrintable(failures + " (" + expected.reason + ")"));
    }
};

QTEST_GUILESS_MAIN(TestDeviceMemoryH200)
#include "tst_device_memory_h200.moc"
