# SPDX-License-Identifier: GPL-3.0-or-later
"""What the loader checks share: where the upstream checkouts are, the upstream commit they were
taken at, the exit code for "skipped" and the one-line result each check prints."""

import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# The checkouts (git archive of the fetched mirror), one folder per target, under UPSTREAM
# (default /work/upstream): megatron-lm, torchtitan, megatron-bridge, galvatron.
UPSTREAM = pathlib.Path(os.environ.get("STRATEX_UPSTREAM", "/work/upstream"))

# The commits the results in docs/export-loaders.md were taken at.
COMMITS = {
    "megatron-lm": "NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553 (2026-08-22)",
    "torchtitan": "pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (2026-08-21)",
    "megatron-bridge": "NVIDIA-NeMo/Megatron-Bridge@067f987df03b8355b03192d88d70f1709fedf51a (2026-08-22)",
    "galvatron": "PKU-DAIR/Hetu-Galvatron@cea12ffb146a220643c8f99f9cb84294755d29f8 (2026-06-16)",
}

SKIP = 77  # automake's "skipped" exit code: the upstream checkout is absent


def checkout(name):
    """The upstream tree, or exit SKIP with a line saying how to get it."""
    root = UPSTREAM / name
    if not root.is_dir():
        print(f"SKIP {name}: no upstream checkout at {root} (see docs/export-loaders.md)")
        sys.exit(SKIP)
    return root


def bash_array(script, name):
    """The words of bash array `name` as the exported script defines it (bash does the quoting)."""
    code = f'source "$1" >/dev/null; printf "%s\\0" "${{{name}[@]}}"'
    out = subprocess.run(["bash", "-c", code, "bash", str(script)], capture_output=True, check=True,
                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}).stdout
    return [w.decode() for w in out.split(b"\0")[:-1]]


def result(status, message=""):
    """PASS / FAIL, one line, and the exit code."""
    print(f"{status} {message}".rstrip())
    sys.exit(0 if status == "PASS" else 1)


def stratex_cli():
    """The stratex-cli that wrote the exports: STRATEX_CLI, else the release build of this tree."""
    return os.environ.get("STRATEX_CLI", str(HERE.parent.parent / "build/release/bin/stratex-cli"))


def resolved_model(plan_path):
    """The plan's model description with every fact Stratex assumes (RoPE, MLA, MoE routing...),
    as Stratex writes it into a Galvatron file (model::toJson): the plan is exported to Galvatron
    with its strategy reduced to plain data parallelism, which Galvatron always takes."""
    import json
    import tempfile
    plan = json.load(open(plan_path))
    if "preset" not in plan.get("model", {}):
        return plan["model"]
    world = plan["cluster"]["num_nodes"] * plan["cluster"]["gpus_per_node"]
    plan["strategy"] = {"tp": 1, "pp": 1, "dp": world, "zero": 0, "micro_batch_size": 1, "global_batch_size": world}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(plan, f)
    out = subprocess.run([stratex_cli(), "export", "--strategy", f.name, "--to", "galvatron"], capture_output=True,
                         text=True)
    os.unlink(f.name)
    if out.returncode != 0:
        raise RuntimeError(f"model facts of {plan_path}: {out.stderr.strip()}")
    return json.loads(out.stdout)["model"]
