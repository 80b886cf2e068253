// SPDX-License-Identifier: GPL-3.0-or-later
// The collective model (core/hardware/collectives.h) against published nccl-tests bus bandwidths
// (tests/data/nccl-tests/*.json, each with its source and what was assumed): within 15 % of
// every point. And the mechanisms one by one: NCCL's step counts, its algorithm choice, NIC sharing.
#include <fstream>
#include <nlohmann/json.hpp>

#include <QtTest>

#include "core/hardware/cluster_json.h"
#include "core/hardware/collectives.h"
#include "core/hardware/hardware_model.h"

using namespace stratex;
using namespace stratex::hardware;

namespace {

const std::filesystem::path kCurves = std::filesystem::path(STRATEX_TEST_DATA_DIR) / "nccl-tests";

CollectiveKind kindOf(const std::string& name)
{
    if (name == "all_reduce")
        return CollectiveKind::AllReduce;
    if (name == "all_gather")
        return CollectiveKind::AllGather;
    if (name == "reduce_scatter")
        return CollectiveKind::ReduceScatter;
    if (name == "alltoall")
        return CollectiveKind::AllToAll;
    throw std::runtime_error("unknown collective " + name);
}

// nccl-tests' bus bandwidth factor (NVIDIA/nccl-tests, its performance notes): 2(n-1)/n for
// all-reduce, (n-1)/n for the others.
double busFactor(CollectiveKind kind, int n)
{
    return kind == CollectiveKind::AllReduce ? 2.0 * (n - 1) / n : double(n - 1) / n;
}

ClusterDescription clusterOf(const nlohmann::json& c)
{
    ClusterDescription cluster;
    cluster.gpu = gpuPreset(c.at("gpu_preset").get<std::string>());
    cluster.gpus_per_node = c.at("gpus_per_node").get<int>();
    cluster.num_nodes = c.at("num_nodes").get<int>();
    if (c.contains("network_gb_per_s_per_gpu"))
        cluster.gpu.network_gb_per_s_per_gpu = c.at("network_gb_per_s_per_gpu").get<double>();
    if (c.contains("topology")) {
        NodeTopology t = defaultTopology(cluster.gpu);
        t.nics_per_node = c.at("topology").value("nics_per_node", 0);
        t.nvlink_sharp = c.at("topology").value("nvlink_sharp", t.nvlink_sharp);
        cluster.topology = t;
    }
    return cluster;
}

ClusterDescription h100(int nodes)
{
    ClusterDescription cluster;
    cluster.gpu = gpuPreset("h100-80gb");
    cluster.num_nodes = nodes;
    cluster.gpus_per_node = 8;
    return cluster;
}

} // namespace

class TestCollectives : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void publishedCurves_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("point");
        int files = 0;
        std::vector<std::filesystem::path> paths;
        for (const auto& entry : std::filesystem::directory_iterator(kCurves)) {
            if (entry.path().extension() == ".json")
                paths.push_back(entry.path());
        }
        std::sort(paths.begin(), paths.end());
        for (const auto& path : paths) {
            std::ifstream in(path);
            const nlohmann::json doc = nlohmann::json::parse(in);
            ++files;
            for (std::size_t i = 0; i < doc.at("points").size(); ++i) {
                const auto& p = doc.at("points")[i];
                const std::string tag = path.stem().string() + " " + p.at("collective").get<std::string>() + " "
                    + std::to_string(p.at("ranks").get<int>()) + " ranks "
                    + std::to_string(p.at("bytes").get<double>() / 1e6) + " MB";
                QTest::newRow(tag.c_str()) << QString::fromStdString(path.string()) << int(i);
            }
        }
        QVERIFY(files >= 3);
    }

    void publishedCurves()
    {
        QFETCH(QString, file);
        QFETCH(int, point);
        std::ifstream in(file.toStdString());
        const nlohmann::json doc = nlohmann::json::parse(in);
        QVERIFY(doc.at("source").contains("url"));
        QVERIFY(doc.at("source").contains("assumed"));
        const ClusterDescription cluster = clusterOf(doc.at("cluster"));
        const nlohmann::json& p = doc.at("points")[std::size_t(point)];
        const CollectiveKind kind = kindOf(p.at("collective").get<std::string>());
        const int ranks = p.at("ranks").get<int>();
        const double bytes = p.at("bytes").get<double>();
        // The curves test the mechanism from the datasheet figures, not a fit.
        const CollectiveModel model(cluster, datasheetEfficiency(cluster.gpu));
        // nccl-tests runs one communicator over all ranks, the only one on the nodes.
        const CollectiveTime t = model.time(kind, bytes, { ranks, 1, 1 });
        const double busGbPerS = bytes / t.time_s * busFactor(kind, ranks) / 1e9;
        const double measured = p.at("bus_bandwidth_gb_per_s").get<double>();
        const double error = busGbPerS / measured - 1;
        qInfo("%s: predicted %.1f GB/s (%s/%s), measured %.1f GB/s, %+.1f %%", QTest::currentDataTag(), busGbPerS,
            algorithmName(t.algorithm), protocolName(t.protocol), measured, error * 100);
        QVERIFY2(std::abs(error) <= 0.15, qPrintable(QString("error %1 %").arg(error * 100, 0, 'f', 1)));
    }

    // NCCL's step counts: a ring all-gather on 8 NVLink GPUs pays 7 steps of NVLink latency, an
    // all-reduce 14; the log2 model paid 3 and 6.
    void ringStepLatency()
    {
        ClusterDescription cluster = h100(1);
        cluster.topology = NodeTopology {}; // no NVLS: rings only
        const CollectiveModel model(cluster, datasheetEfficiency(cluster.gpu));
        const CollectiveTime ag = model.time(CollectiveKind::AllGather, 8, { 8, 1 });
        QCOMPARE(ag.algorithm, NcclAlgorithm::Ring);
        QCOMPARE(ag.protocol, NcclProtocol::LL);
        QVERIFY(std::abs(ag.time_s * 1e6 - (6.6 + 7 * 0.6)) < 0.01);
        const CollectiveTime ar = model.time(CollectiveKind::AllReduce, 8, { 8, 1 });
        QVERIFY(std::abs(ar.time_s * 1e6 - (6.6 + 14 * 0.6)) < 0.01);
    }

    // What NCCL picks: NVLS for a large all-reduce inside an H100 node, rings for its all-gather,
    // NVLS tree across nodes, PAT for a small all-gather with one rank per node.
    void algorithmChoice()
    {
        const CollectiveModel one(h100(1), datasheetEfficiency(gpuPreset("h100-80gb")));
        QCOMPARE(one.time(CollectiveKind::AllReduce, 1e9, { 8, 1 }).algorithm, NcclAlgorithm::Nvls);
        QCOMPARE(one.time(CollectiveKind::AllGather, 1e9, { 8, 1 }).algorithm, NcclAlgorithm::Ring);
        const CollectiveModel many(h100(64), datasheetEfficiency(gpuPreset("h100-80gb")));
        QCOMPARE(many.time(CollectiveKind::AllReduce, 1e9, { 512, 1 }).algorithm, NcclAlgorithm::NvlsTree);
        QCOMPARE(many.time(CollectiveKind::AllGather, 1e5, { 64, 8 }).algorithm, NcclAlgorithm::Pat);
        QCOMPARE(many.time(CollectiveKind::AllGather, 1e9, { 64, 8 }).algorithm, NcclAlgorithm::Ring);
    }

    // NIC sharing: with 4 NICs for 8 GPUs, 8 concurrent one-rank-per-node groups get half a NIC
    // each, a lone group a whole NIC; with one NIC per GPU concurrency costs nothing.
    void nicSharing()
    {
        ClusterDescription cluster = h100(16);
        cluster.topology = NodeTopology { 0, 4, true, true };
        const CollectiveModel shared(cluster, datasheetEfficiency(cluster.gpu));
        const double alone = shared.interNodeGbPerS({ 16, 8, 1 });
        const double all = shared.interNodeGbPerS({ 16, 8, 8 });
        QVERIFY(std::abs(alone / all - 2) < 1e-9);
        QVERIFY(shared.timeS(CollectiveKind::ReduceScatter, 1e9, { 16, 8, 8 })
            > 1.8 * shared.timeS(CollectiveKind::ReduceScatter, 1e9, { 16, 8, 1 }));
        const CollectiveModel dgx(h100(16), datasheetEfficiency(cluster.gpu));
        QCOMPARE(dgx.interNodeGbPerS({ 16, 8, 1 }), dgx.interNodeGbPerS({ 16, 8, 8 }));
        // Two ranks of a group per node use two NICs.
        QVERIFY(std::abs(dgx.interNodeGbPerS({ 32, 4 }) / dgx.interNodeGbPerS({ 16, 8 }) - 2) < 1e-9);
    }

    // The per-thread memo of time(): a model built after another (at the same address, as a
    // search's HardwareModel is) must not read the other's entries.
    void memoKeepsModelsApart()
    {
        ClusterDescription h100;
        h100.gpu = gpuPreset("h100-80gb");
        h100.num_nodes = 4;
        ClusterDescription a100 = h100;
        a100.gpu = gpuPreset("a100-80gb");
        const GroupShape group { 32, 1, 0 };
        const double bytes = 256e6;
        double first = 0;
        {
            const CollectiveModel model(h100, efficiencyFor(h100.gpu));
            first = model.timeS(CollectiveKind::AllReduce, bytes, group);
            QCOMPARE(model.timeS(CollectiveKind::AllReduce, bytes, group), first); // a hit
        }
        double other = 0;
        {
            const CollectiveModel model(a100, efficiencyFor(a100.gpu));
            other = model.timeS(CollectiveKind::AllReduce, bytes, group);
        }
        QVERIFY(other != first);
        const CollectiveModel again(a100, efficiencyFor(a100.gpu));
        QCOMPARE(again.timeS(CollectiveKind::AllReduce, bytes, group), other);
    }

    // GB200 NVL72: hosts of 4 GPUs in NVLink domains of 72. A TP group of 8 stays on NVLink; a
    // group leaving the rack has the rack's 72 NICs, one per GPU, so no concurrency shares them. The
    // same GPUs without the rack's NVLink domain (4-GPU hosts joined by the network) are slower.
    void nvl72Domain_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("nodesInRack");
        QTest::addColumn<double>("interNodePerRank");
        QTest::newRow("TP 8 inside the rack") << 8 << 1 << 1 << 0.0;
        QTest::newRow("EP 64 inside the rack") << 64 << 1 << 1 << 0.0;
        QTest::newRow("DP 8 across racks") << 8 << 72 << 8 << 50 * 0.92;
        QTest::newRow("DP 32 of stride 8: 9 per rack") << 32 << 8 << 4 << 50 * 0.92;
    }
    void nvl72Domain()
    {
        QFETCH(int, size);
        QFETCH(int, stride);
        QFETCH(int, nodesInRack);
        QFETCH(double, interNodePerRank);
        ClusterDescription rack;
        rack.gpu = gpuPreset("gb200-186gb");
        rack.gpus_per_node = 4;
        rack.num_nodes = 18 * 8;
        QCOMPARE(rack.nodeTopology().nvlink_domain_gpus, 72);
        QCOMPARE(rack.scaleUpGpus(), 72);
        const Efficiency eff = efficiencyFor(rack.gpu);
        const CollectiveModel model(rack, eff);
        const GroupShape group { size, stride };
        const GroupPlacement p = model.placement(group);
        QCOMPARE(p.nodes, nodesInRack);
        if (p.nodes > 1) {
            const double perRank = model.interNodeGbPerS(group) / p.ranks_per_node;
            QVERIFY2(std::abs(perRank - interNodePerRank) < 1e-9, std::to_string(perRank).c_str());
        }
        QCOMPARE(HardwareModel(rack, eff).spansNodes(group), p.nodes > 1);
        // Without the NVLink domain (the hosts alone) the group is as slow or slower.
        ClusterDescription hosts = rack;
        NodeTopology t = rack.nodeTopology();
        t.nvlink_domain_gpus = 0;
        hosts.topology = t;
        const CollectiveModel apart(hosts, eff);
        const double bytes = 256e6;
        QVERIFY(apart.timeS(CollectiveKind::AllReduce, bytes, group) >= model.timeS(CollectiveKind::AllReduce, bytes, group));
        if (size * stride <= 72 && size * stride > 4)
            QVERIFY(apart.timeS(CollectiveKind::AllReduce, bytes, group) > 1.5 * model.timeS(CollectiveKind::AllReduce, bytes, group));
    }

    void topologyJsonRoundTrip()
    {
        ClusterDescription cluster = h100(2);
        cluster.topology = NodeTopology { 72, 4, false, true };
        const nlohmann::ordered_json json = toJson(cluster);
        QCOMPARE(json["topology"]["nics_per_node"].get<int>(), 4);
        QCOMPARE(json["topology"]["nvlink_domain_gpus"].get<int>(), 72);
        QVERIFY(!json.contains("efficiency"));
    }
};

QTEST_APPLESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
