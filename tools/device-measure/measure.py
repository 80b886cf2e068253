#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measure what Stratex's kernel and memory models need, on one GPU (issues 22 item 7, 23 item 5).

One prepared script, run once when a GPU machine is at hand (docs/device-measurements.md):

  python3 tools/device-measure/measure.py --out DIR            # on a GPU: the whole set, ~5 min
  python3 tools/device-measure/measure.py --out DIR --cpu      # anywhere with torch: tiny shapes
  python3 tools/device-measure/measure.py --self-check         # no torch needed: the script's own checks

It writes DIR/kernels.json and DIR/memory.json, each with a "provenance" block (GPU, driver, CUDA,
torch version, date, the script's own hash) and one row per measurement:

* kernels.json
  - gemm: time of an m x k by k x n matmul in bf16 (and fp8 through torch._scaled_mm where the
    GPU has it) over a grid of shapes, with achieved TFLOP/s -- the tile and wave quantisation the
    GEMM model must reproduce; fp8 rows also time use_fast_accum=True (fast_accum_time_s), the
    accumulation Transformer Engine's and torchao's forward GEMMs use (docs/kernels.md §8);
  - attention: torch scaled_dot_product_attention (flash or cuDNN backend, causal) forward and
    forward+backward over sequence lengths, heads and head sizes;
  - memory_bound: copy, add, RMSNorm-like and softmax over sizes, achieved GB/s;
  - launch_floor: time per launch of a one-element kernel, back to back (the per-kernel floor);
  - train_step: one training step (forward, backward, AdamW) of small GPT models, time per step,
    with the kernel launches per step counted by the profiler where available.
* memory.json: a few training steps of small models under several settings (micro-batch,
  recompute, sequence length, FSDP2 on one GPU, expandable_segments on and off), each in its own
  process so PYTORCH_CUDA_ALLOC_CONF takes effect, with torch.cuda.max_memory_allocated,
  max_memory_reserved, the device memory in use (mem_get_info) and the tensors' analytical sizes.

Timing: CUDA events around N repetitions after warm-up, median of 5 such trials. No number is
edited after the run; the JSON is what the GPU said.
"""

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

SCHEMA_VERSION = 1


# ----------------------------------------------------------------------------------------------
# Pure-Python parts (checked by --self-check without torch)


def gemm_grid(cpu):
    """(m, n, k) shapes: square sizes across the tile boundaries, and the skinny shapes of
    TP-sharded transformer GEMMs (tokens x hidden/tp x hidden)."""
    if cpu:
        return [(64, 64, 64), (128, 96, 64), (256, 256, 128)]
    shapes = []
    for d in (256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384):
        shapes.append((d, d, d))
    for tokens in (1024, 4096, 16384):
        for hidden in (1024, 2048, 4096, 8192):
            for tp in (1, 2, 4, 8):
                shapes.append((tokens, 3 * hidden // tp, hidden))  # QKV projection
                shapes.append((tokens, hidden, hidden // tp))  # attention output projection
                shapes.append((tokens, 4 * hidden // tp, hidden))  # MLP up
    # Wave-quantisation probes: one tile more than a full wave of 128 x 256 tiles on 132 SMs.
    for n in (128 * 132, 128 * 133):
        shapes.append((256, n, 4096))
    return sorted(set(shapes))


def attention_grid(cpu):
    """(batch, heads, seq, head_dim)."""
    if cpu:
        return [(1, 2, 64, 32), (1, 2, 128, 64)]
    grid = []
    for seq in (512, 1024, 2048, 4096, 8192, 16384):
        for heads, head_dim in ((8, 128), (16, 128), (32, 128), (16, 64)):
            batch = max(1, 16384 // seq)
            grid.append((batch, heads, seq, head_dim))
    return grid


def memory_bound_sizes(cpu):
    """Elements (bf16) per tensor."""
    if cpu:
        return [1 << 12, 1 << 16]
    return [1 << e for e in range(12, 31, 2)]


def train_configs(cpu):
    """Small GPT models: (name, layers, hidden, heads, seq, micro_batch, vocab)."""
    if cpu:
        return [("tiny", 2, 64, 4, 32, 2, 256)]
    return [
        ("gpt-h1024-l8-mbs1", 8, 1024, 16, 1024, 1, 50304),
        ("gpt-h1024-l8-mbs8", 8, 1024, 16, 1024, 8, 50304),
        ("gpt-h2048-l8-mbs1", 8, 2048, 16, 1024, 1, 50304),
        ("gpt-h2048-l8-mbs4", 8, 2048, 16, 1024, 4, 50304),
        ("gpt-h2048-l16-seq2048-mbs2", 16, 2048, 16, 2048, 2, 50304),
        ("llama-h4096-l4-seq4096-mbs1", 4, 4096, 32, 4096, 1, 32000),
    ]


def memory_settings(cpu):
    """One process per setting: (name, model config, recompute, fsdp, expandable_segments)."""
    if cpu:
        tiny = ("tiny", 2, 64, 4, 32, 2, 256)
        return [("tiny", tiny, False, False, False), ("tiny-recompute", tiny, True, False, False)]
    base = ("gpt-h2048-l8", 8, 2048, 16, 2048, 2, 50304)
    settings = []
    for expandable in (False, True):
        tag = "-expandable" if expandable else ""
        settings += [
            ("mbs2" + tag, base, False, False, expandable),
            ("mbs4" + tag, base[:5] + (4,) + base[6:], False, False, expandable),
            ("mbs2-recompute" + tag, base, True, False, expandable),
            ("seq4096-mbs1" + tag, base[:4] + (4096, 1) + base[6:], False, False, expandable),
            ("mbs2-fsdp2" + tag, base, False, True, expandable),
        ]
    return settings


def gpt_parameter_count(layers, hidden, vocab, seq):
    """GPT-2 style: per layer 12 h^2 + 13 h (QKV, proj, 4h MLP, two LayerNorms, biases); embeddings
    vocab x h and positions seq x h, tied LM head; final LayerNorm."""
    return layers * (12 * hidden * hidden + 13 * hidden) + vocab * hidden + seq * hidden + 2 * hidden


def median_of(values):
    return statistics.median(values) if values else float("nan")


def tflops(flops, seconds):
    return flops / seconds / 1e12 if seconds > 0 else 0.0


def script_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def check_rows(rows, required):
    """Every row has the required keys with finite numbers."""
    problems = []
    for i, row in enumerate(rows):
        for key in required:
            value = row.get(key)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                problems.append("row %d: %s is %r" % (i, key, value))
    return problems


def self_check():
    """The script's own checks, no torch needed: grids are non-empty and sane, the parameter
    count matches GPT-2 small (124M), the row checker catches bad values."""
    failures = []
    for cpu in (True, False):
        if not gemm_grid(cpu) or any(min(s) <= 0 for s in gemm_grid(cpu)):
            failures.append("gemm grid")
        if not attention_grid(cpu) or not train_configs(cpu) or not memory_settings(cpu):
            failures.append("grids")
    gpt2 = gpt_parameter_count(12, 768, 50257, 1024)
    if abs(gpt2 - 124.4e6) > 0.5e6:
        failures.append("GPT-2 small parameter count %d" % gpt2)
    if not check_rows([{"a": float("nan")}], ["a"]) or check_rows([{"a": 1.0}], ["a"]):
        failures.append("row checker")
    if median_of([3, 1, 2]) != 2:
        failures.append("median")
    names = [s[0] for s in memory_settings(False)]
    if len(names) != len(set(names)):
        failures.append("memory setting names repeat")
    for failure in failures:
        print("self-check failed: " + failure, file=sys.stderr)
    print("self-check: %s" % ("ok" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


# ----------------------------------------------------------------------------------------------
# Measurements (need torch)


def provenance(torch, device):
    info = {
        "schema_version": SCHEMA_VERSION,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "script_sha256_16": script_hash(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "device": str(device),
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update({
            "gpu": props.name,
            "sm_count": props.multi_processor_count,
            "gpu_memory_bytes": props.total_memory,
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
        })
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=20)
            info["nvidia_smi"] = out.stdout.strip()
        except (OSError, subprocess.SubprocessError) as error:
            info["nvidia_smi"] = "unavailable: %s" % error
    else:
        info["cpu"] = platform.processor() or platform.machine()
        info["threads"] = torch.get_num_threads()
    return info


class Timer:
    """Median time of `fn` over trials of `reps` calls, after warm-up."""

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device

    def __call__(self, fn, reps=10, trials=5, warmup=3):
        torch = self.torch
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(trials):
            if self.device.type == "cuda":
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(reps):
                    fn()
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end) / 1e3 / reps)
            else:
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn()
                times.append((time.perf_counter() - t0) / reps)
        return median_of(times)


def measure_gemm(torch, device, timer, cpu):
    rows = []
    dtype = torch.bfloat16 if not cpu else torch.float32
    fp8 = device.type == "cuda" and hasattr(torch, "float8_e4m3fn") and hasattr(torch, "_scaled_mm") \
        and torch.cuda.get_device_capability(device) >= (8, 9)
    for m, n, k in gemm_grid(cpu):
        a = torch.randn(m, k, device=device, dtype=dtype)
        b = torch.randn(k, n, device=device, dtype=dtype)
        flops = 2.0 * m * n * k
        reps = max(1, min(50, int(2e12 / flops))) if not cpu else 3
        seconds = timer(lambda: torch.matmul(a, b), reps=reps)
        rows.append({"dtype": str(dtype).replace("torch.", ""), "m": m, "n": n, "k": k,
                     "time_s": seconds, "tflops": tflops(flops, seconds)})
        if fp8 and m % 16 == 0 and n % 16 == 0 and k % 16 == 0:
            a8 = a.to(torch.float8_e4m3fn)
            b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major second operand
            one = torch.ones((), device=device, dtype=torch.float32)
            try:
                seconds = timer(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                         out_dtype=torch.bfloat16), reps=reps)
                row = {"dtype": "float8_e4m3fn", "m": m, "n": n, "k": k,
                       "time_s": seconds, "tflops": tflops(flops, seconds)}
                # The forward GEMMs of TE (_2X_ACC_FPROP False) and torchao (gemm_config_output
                # use_fast_accum=True) skip the split accumulator; the backward ones keep it.
                try:
                    fast = timer(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                          out_dtype=torch.bfloat16, use_fast_accum=True),
                                 reps=reps)
                    row["fast_accum_time_s"] = fast
                except (RuntimeError, TypeError) as error:
                    row["fast_accum_error"] = str(error)[:200]
                rows.append(row)
            except (RuntimeError, TypeError) as error:
                rows.append({"dtype": "float8_e4m3fn", "m": m, "n": n, "k": k, "error": str(error)[:200]})
        del a, b
    return rows


def causal_attention(torch, q, k, v):
    """torch's fused SDPA (flash / cuDNN / memory-efficient, PyTorch >= 2.0); on older PyTorch (only
    for the --cpu check, e.g. Debian's 1.13) the plain softmax(QK^T)V it replaces."""
    import torch.nn.functional as F

    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    seq = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    mask = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ v


def measure_attention(torch, device, timer, cpu):
    import torch.nn.functional as F

    rows = []
    dtype = torch.bfloat16 if not cpu else torch.float32
    for batch, heads, seq, dim in attention_grid(cpu):
        q, k, v = (torch.randn(batch, heads, seq, dim, device=device, dtype=dtype, requires_grad=True)
                   for _ in range(3))
        # Causal attention FLOPs: QK^T and PV, half the square.
        flops = 4.0 * batch * heads * seq * seq * dim / 2
        forward = timer(lambda: causal_attention(torch, q, k, v), reps=5 if not cpu else 2)

        def step():
            out = causal_attention(torch, q, k, v)
            out.backward(torch.ones_like(out))

        both = timer(step, reps=3 if not cpu else 1)
        rows.append({"batch": batch, "heads": heads, "seq": seq, "head_dim": dim, "causal": True,
                     "fused": hasattr(F, "scaled_dot_product_attention"),
                     "forward_s": forward, "forward_backward_s": both,
                     "forward_tflops": tflops(flops, forward), "forward_backward_tflops": tflops(3.5 * flops, both)})
        del q, k, v
    return rows


def measure_memory_bound(torch, device, timer, cpu):
    rows = []
    dtype = torch.bfloat16 if not cpu else torch.float32
    size = 2 if not cpu else 4
    for elements in memory_bound_sizes(cpu):
        x = torch.randn(elements, device=device, dtype=dtype)
        y = torch.randn(elements, device=device, dtype=dtype)
        out = torch.empty_like(x)
        rows_of = max(1, elements // 4096)
        x2 = x.view(rows_of, -1)
        kernels = {
            "copy": (lambda: out.copy_(x), 2 * elements * size),
            "add": (lambda: torch.add(x, y, out=out), 3 * elements * size),
            "rms_norm": (lambda: x2 * torch.rsqrt(x2.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(dtype),
                         2 * elements * size),
            "softmax": (lambda: torch.softmax(x2, dim=-1), 2 * elements * size),
        }
        for name, (fn, moved) in kernels.items():
            seconds = timer(fn, reps=10 if not cpu else 2)
            rows.append({"kernel": name, "elements": elements, "bytes_moved": moved, "time_s": seconds,
                         "gb_per_s": moved / seconds / 1e9 if seconds > 0 else 0.0})
        del x, y, out
    return rows


def measure_launch_floor(torch, device, timer, cpu):
    x = torch.zeros(1, device=device)
    seconds = timer(lambda: x.add_(1), reps=1000 if not cpu else 100)
    return [{"kernel": "add_one_element", "time_s_per_launch": seconds}]


def build_gpt(torch, layers, hidden, heads, seq, vocab, recompute=False):
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(hidden)
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.proj = nn.Linear(hidden, hidden)
            self.ln2 = nn.LayerNorm(hidden)
            self.up = nn.Linear(hidden, 4 * hidden)
            self.down = nn.Linear(4 * hidden, hidden)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, heads, h // heads).permute(2, 0, 3, 1, 4)
            a = causal_attention(torch, q, k, v).transpose(1, 2).reshape(b, s, h)
            x = x + self.proj(a)
            return x + self.down(F.gelu(self.up(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.pos = nn.Embedding(seq, hidden)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln = nn.LayerNorm(hidden)

        def forward(self, tokens):
            x = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]
            for block in self.blocks:
                x = checkpoint(block, x, use_reentrant=False) if recompute else block(x)
            return F.linear(self.ln(x), self.embed.weight)  # tied LM head

    return GPT()


def train_steps(torch, device, config, steps, recompute=False, fsdp=False):
    import torch.nn.functional as F

    _, layers, hidden, heads, seq, mbs, vocab = config
    model = build_gpt(torch, layers, hidden, heads, seq, vocab, recompute).to(device)
    if fsdp:
        from torch.distributed.fsdp import fully_shard  # FSDP2 (torch >= 2.6)

        for block in model.blocks:
            fully_shard(block)
        fully_shard(model)
    # Fused AdamW on the GPU (one kernel per parameter group, as torchtitan and Megatron use); the
    # plain one on the CPU.
    options = {"fused": True} if device.type == "cuda" else {}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, **options)
    tokens = torch.randint(0, vocab, (mbs, seq), device=device)
    autocast = torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")

    def step():
        with autocast:
            logits = model(tokens)
            loss = F.cross_entropy(logits.float().view(-1, vocab), tokens.view(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    times = []
    for _ in range(steps):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return model, step, times


def measure_train_steps(torch, device, cpu):
    rows = []
    for config in train_configs(cpu):
        name, layers, hidden, heads, seq, mbs, vocab = config
        model, step, times = train_steps(torch, device, config, steps=3 if cpu else 12)
        launches = None
        try:
            from torch.profiler import ProfilerActivity, profile

            activities = [ProfilerActivity.CUDA] if device.type == "cuda" else [ProfilerActivity.CPU]
            with profile(activities=activities) as prof:
                step()
                if device.type == "cuda":
                    torch.cuda.synchronize()
            if device.type == "cuda":
                launches = sum(1 for e in prof.events() if e.device_type.name == "CUDA")
        except (RuntimeError, AttributeError, ImportError):
            pass
        params = sum(p.numel() for p in model.parameters())
        flops = 6.0 * params * mbs * seq + 12.0 * layers * hidden * seq * seq * mbs / 2
        steady = median_of(times[2:] if len(times) > 3 else times)
        rows.append({"name": name, "layers": layers, "hidden": hidden, "heads": heads, "seq": seq,
                     "micro_batch": mbs, "vocab": vocab, "parameters": params, "step_s": steady,
                     "tflops": tflops(flops, steady), "gpu_kernels_per_step": launches})
        del model
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return rows


def memory_child(setting_json):
    """Runs in its own process: PYTORCH_CUDA_ALLOC_CONF is read at CUDA initialisation."""
    import torch

    name, config, recompute, fsdp, expandable = json.loads(setting_json)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if fsdp:
        import torch.distributed as dist

        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29517")
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo", rank=0, world_size=1)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
        free0, total = torch.cuda.mem_get_info()
    model, _, times = train_steps(torch, device, config, steps=4, recompute=recompute, fsdp=fsdp)
    row = {"name": name, "layers": config[1], "hidden": config[2], "heads": config[3], "seq": config[4],
           "micro_batch": config[5], "vocab": config[6], "recompute": recompute, "fsdp2": fsdp,
           "expandable_segments": expandable, "parameters": sum(p.numel() for p in model.parameters()),
           "step_s": median_of(times[1:])}
    if device.type == "cuda":
        free1, _ = torch.cuda.mem_get_info()
        stats = torch.cuda.memory_stats()
        row.update({
            "max_memory_allocated_bytes": torch.cuda.max_memory_allocated(),
            "max_memory_reserved_bytes": torch.cuda.max_memory_reserved(),
            "device_used_before_bytes": total - free0,  # CUDA context and libraries before the model
            "device_used_after_bytes": total - free1,  # what nvidia-smi shows for this process, roughly
            "device_total_bytes": total,
            "num_alloc_retries": stats.get("num_alloc_retries", 0),
            "segments": stats.get("segment.all.peak", 0),
        })
    if fsdp:
        import torch.distributed as dist

        dist.destroy_process_group()
    print(json.dumps(row))
    return 0


def measure_memory(cpu, progress=None):
    rows = []
    for setting in memory_settings(cpu):
        if progress:
            progress(rows)  # what is measured so far survives a time limit
        env = dict(os.environ)
        env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True" if setting[4] else "expandable_segments:False"
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child", json.dumps(setting)],
                              capture_output=True, text=True, env=env, timeout=600)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or not lines:
            rows.append({"name": setting[0], "error": (proc.stderr or proc.stdout)[-400:]})
        else:
            rows.append(json.loads(lines[-1]))
    return rows


def write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="folder for kernels.json and memory.json")
    parser.add_argument("--cpu", action="store_true", help="tiny shapes on the CPU (a check of the script)")
    parser.add_argument("--only", choices=["kernels", "memory"], help="measure one part")
    parser.add_argument("--self-check", action="store_true", help="the script's own checks; no torch needed")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.self_check:
        return self_check()
    if args.memory_child:
        return memory_child(args.memory_child)
    if not args.out:
        parser.error("--out DIR is required")
    try:
        import torch
    except ImportError:
        print("error: PyTorch is not installed (python3 -c 'import torch' fails); --self-check runs without it",
              file=sys.stderr)
        return 2
    cpu = args.cpu or not torch.cuda.is_available()
    device = torch.device("cpu" if cpu else "cuda")
    os.makedirs(args.out, exist_ok=True)
    timer = Timer(torch, device)
    started = time.time()
    failures = []
    if args.only in (None, "kernels"):
        kernels = {"provenance": provenance(torch, device)}
        for key, fn in (("launch_floor", lambda: measure_launch_floor(torch, device, timer, cpu)),
                        ("gemm", lambda: measure_gemm(torch, device, timer, cpu)),
                        ("attention", lambda: measure_attention(torch, device, timer, cpu)),
                        ("memory_bound", lambda: measure_memory_bound(torch, device, timer, cpu)),
                        ("train_step", lambda: measure_train_steps(torch, device, cpu))):
            t0 = time.time()
            kernels[key] = fn()
            print("%s: %d rows in %.1f s" % (key, len(kernels[key]), time.time() - t0), flush=True)
            # written after every part, so that a device session cut short keeps what it measured
            write_json(os.path.join(args.out, "kernels.json"), kernels)
        failures += check_rows([r for r in kernels["gemm"] if "error" not in r], ["m", "n", "k", "time_s", "tflops"])
        failures += check_rows(kernels["attention"], ["forward_s", "forward_backward_s"])
        failures += check_rows(kernels["train_step"], ["step_s", "parameters"])
    if args.only in (None, "memory"):
        memory = {"provenance": provenance(torch, device), "runs": []}
        memory_path = os.path.join(args.out, "memory.json")
        memory["runs"] = measure_memory(cpu, lambda rows: write_json(memory_path, dict(memory, runs=rows)))
        print("memory: %d settings" % len(memory["runs"]), flush=True)
        write_json(memory_path, memory)
        failures += ["memory %s: %s" % (r["name"], r["error"][-200:]) for r in memory["runs"] if "error" in r]
    for failure in failures:
        print("check failed: " + failure, file=sys.stderr)
    print("done in %.0f s, %d failed checks" % (time.time() - started, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
