// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace stratex::galvatron {

// Data-parallel flavour of a layer: plain DDP, ZeRO-2 (sharded optimizer states and gradients) or
// ZeRO-3 (also sharded parameters; Galvatron's "fsdp"/"sdp"). The order is Galvatron's: it sorts
// strategies by the type's name, "ddp" < "zero2" < "zero3".
enum class DpType { Ddp, Zero2, Zero3 };

std::string_view dpTypeName(DpType type);
std::optional<DpType> parseDpType(std::string_view name);

// One transformer layer's parallel strategy (Galvatron main's LayerStrategy). tp is Megatron
// tensor parallelism (with Megatron sequence parallelism when enabled), sp Ulysses sequence
// parallelism; at most one of them is > 1. Ordered lexicographically by (pp, tp, sp, cp, dp,
// dp_type, checkpoint), the order Galvatron sorts and breaks ties in.
struct LayerStrategy {
    int pp = 1;
    int tp = 1;
    int sp = 1;
    int cp = 1;
    int dp = 1;
    DpType dp_type = DpType::Ddp;
    bool checkpoint = false;

    int tpsp() const { return std::max(tp, sp); }
    int sdp() const { return dp * sp * cp; } // the gradient-sync group (Ulysses SP shares it)
    int world() const { return pp * tp * sp * cp * dp; }
    bool ulysses() const { return sp > 1; }

    // Galvatron's notation "pp-tpsp[*]-dp[f][-c][-sp]", e.g. "1-1-8f-c", "1-2*-4-sp", "4-2*-1".
    std::string notation() const;

    auto operator<=>(const LayerStrategy&) const = default;
};

// The vocabulary embedding + LM head strategy (no checkpoint flag).
struct EmbeddingStrategy {
    int pp = 1;
    int tp = 1;
    int sp = 1;
    int cp = 1;
    int dp = 1;
    DpType dp_type = DpType::Ddp;

    int tpsp() const { return std::max(tp, sp); }
    int sdp() const { return dp * sp * cp; }
    std::string notation() const;

    auto operator<=>(const EmbeddingStrategy&) const = default;
};

EmbeddingStrategy projection(const LayerStrategy& layer);

} // namespace stratex::galvatron
