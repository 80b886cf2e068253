# SPDX-License-Identifier: GPL-3.0-or-later
"""Permissive stand-ins for the heavy imports of the targets' loaders (torch, transformer_engine,
apex, ...), so that the frameworks' own argument and config code runs on a machine without them.

Nothing here is upstream code. A stubbed name is a class whose every attribute is another stub
class, that can be called with anything (returning a stub instance), subclassed, compared and used
in isinstance checks. Only what the loaders read as plain values is given a real value
(torch.__version__, the dtypes' names). The loaders' own logic (argparse, validate_args, the config
dataclasses' __post_init__) is never stubbed: stub modules are only those named in install()."""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import typing


def _decorated(args, kwargs):
    """A stub used as a class decorator (transformers' @add_start_docstrings(...)) returns the class
    unchanged, so that it stays a class one can derive from. A decorated function becomes a stub
    (torch.library.custom_op's result has register_fake...)."""
    return len(args) == 1 and not kwargs and isinstance(args[0], type) \
        and not issubclass(type(args[0]), Stub) and not vars(args[0]).get("_stub_made", False)


class _StubMeta(typing._ProtocolMeta):
    """Attribute access on a stub class gives another stub class (torch.nn.Module, torch.cuda...).
    A subclass of typing's Protocol metaclass (itself an ABCMeta), so that a class deriving from
    both a stub and a Protocol or ABC (Megatron's "class L2Norm(torch.nn.Module,
    LayerNormInterface)") has a metaclass."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        child = _make(f"{cls.__qualname__}.{name}")
        setattr(cls, name, child)
        return child

    def __call__(cls, *args, **kwargs):
        if _decorated(args, kwargs):
            return args[0]
        return super().__call__(*args, **kwargs)

    def register(cls, *args, **kwargs):  # the stubbed API's register (AutoConfig.register), not ABCMeta's
        return args[-1] if args else None

    def __getitem__(cls, item):  # typing-style use: Tensor[...]
        return cls

    def __or__(cls, other):  # "torch.dtype | None" in annotations
        return cls

    __ror__ = __or__

    def __bool__(cls):
        return True

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0


class Stub(metaclass=_StubMeta):
    """An instance accepts everything too: called, indexed, iterated (empty), false as a bool."""

    def __init_subclass__(cls, **kwargs):  # class keywords of the stubbed base (pydantic's extra=...)
        super().__init_subclass__()

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        if _decorated(args, kwargs):
            return args[0]
        return Stub()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub()

    def __getitem__(self, item):
        return Stub()

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __len__(self):
        return 0

    def __int__(self):
        return 0

    def __index__(self):
        return 0

    def __float__(self):
        return 0.0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<stub>"


def _make(qualname):
    return _StubMeta(qualname.rsplit(".", 1)[-1], (Stub,), {"__qualname__": qualname, "__module__": "stubs", "_stub_made": True})


class _Dtype(Stub):
    """torch.bfloat16 and friends: distinct, hashable, printed as torch prints them."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, _Dtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __bool__(self):
        return True


_VALUES = {
    "torch": {
        "__version__": "2.9.0",
        "dtype": _Dtype,
        **{n: _Dtype(n) for n in ("float32", "float16", "bfloat16", "float64", "int64", "int32", "int8", "uint8",
                                  "bool", "float8_e4m3fn", "float8_e5m2", "half", "float", "long")},
    },
    "transformer_engine": {"__version__": "2.8.0"},
    # The GPU the plans name (H100: compute capability 9.0, Hopper), for the checks that read it
    # (Megatron's get_device_arch_version).
    "torch.cuda": {
        "get_device_properties": lambda *a, **k: types.SimpleNamespace(major=9, minor=0, name="NVIDIA H100 80GB HBM3",
                                                                       total_memory=80 * 2**30, multi_processor_count=132),
        "get_device_capability": lambda *a, **k: (9, 0),
        "is_available": lambda: True,
        "device_count": lambda: 8,
    },
    "torch.version": {"hip": None, "cuda": "12.8", "__version__": "2.9.0"},
}


class _StubModule(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []  # a package: submodules resolve through the finder too
        self.__file__ = "<stub>"
        self.__version__ = "99.0.0"
        for key, value in _VALUES.get(name, {}).items():
            setattr(self, key, value)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        if full in sys.modules:
            return sys.modules[full]
        child = _make(full)
        setattr(self, name, child)
        return child


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots):
        self.roots = set(roots)

    def find_spec(self, fullname, path=None, target=None):
        if any(fullname == root or fullname.startswith(root + ".") for root in self.roots):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        parent, _, leaf = module.__name__.rpartition(".")
        if parent:
            setattr(sys.modules[parent], leaf, module)


def install(roots):
    """Stubs every module in `roots` and below (a root is a package name, "torch" or
    "megatron.energon"), and only those. Also gives
    Python 3.11's typing the 3.12 decorator typing.override (an identity function, as in
    typing_extensions), which Megatron-LM main imports."""
    if not hasattr(typing, "override"):
        typing.override = lambda f: f
    sys.meta_path.insert(0, _Finder(roots))
    for name in _VALUES:
        if name.split(".", 1)[0] in roots:
            importlib.import_module(name)


def is_stub(value):
    return isinstance(value, (Stub, _StubModule)) or (isinstance(value, type) and issubclass(value, Stub))
