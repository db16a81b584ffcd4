"""Real signatures for hetcim's functions, made at import time from the options tables.

Every job's keywords are described once, in C++: the request's field table (api/options.h, the
table the CLI's flags and help come from, ``_hetcim.option_tables()``) plus the few keywords the
binding adds by hand (``_hetcim.keywords()`` lists them all; :data:`EXTRA` below describes the
added ones). :func:`options` turns that description into an :class:`inspect.Signature` (keyword-only
parameters with their types, the request's defaults and the table's help) on the function
(``__signature__``) and an "Options" section in its docstring, so ``help()``, IPython's ``?`` and
completion show them; ``python/scripts/make_stubs.py`` writes the same signatures into the
``.pyi`` stubs that static tools read.

The functions still take ``**options`` underneath: a keyword the user leaves out is not passed at
all, so the request keeps its own default (the one shown), and an unknown keyword is the C++
binding's :class:`hetcim.UserError` listing the known ones.
"""

import inspect as _inspect

# The annotation (as text, as in a stub), default and help of the keywords a job takes beyond
# its table (the lists of a grid, the platform DSE's request, a few older spellings). A default of
# None keeps the request's own default, named in the help.
_GRID = {
    "models": ("list[str] | str | None", None,
               "Zoo names or ONNX paths; a string is split at commas, as the CLI's --models "
               "(default: resnet18, resnet50, mobilenetv2, yolov5n)"),
    "crossbars": ("list[int] | str | None", None,
                  "Crossbar budgets of the grid (default 25, 50, 100, 200)"),
    "t_mvm": ("list[float | str] | str | None", None,
              "MVM latencies of the grid, '50ns' or seconds (default 50, 100, 500, 1000 ns)"),
    "hosts": ("list[str] | str | None", None,
              "Hosts of the grid: arm, x86, a host model, a profile file or 'this' (default "
              "arm, x86)"),
}
_PLATFORM = {
    "platform": ("str | None", None,
                 "Platform preset (cortex-a72-rram, ryzen9-rram, pulp-pcm-cluster) or YAML "
                 "file (default pulp-pcm-cluster)"),
    "imas": ("int | None", None, "Crossbars of the crossbar engine (default: the platform's)"),
    "objective": ("str | None", None, "latency or energy (default latency)"),
    "time_limit": ("float | None", None, "Seconds, wall clock (default 600)"),
    "threads": ("int | None", None, "Threads (default 1)"),
}
EXTRA = {
    "dse": dict(_GRID),
    "dse_platform": {
        **_PLATFORM,
        "sweep": ("list[str] | str | None", None,
                  "'KEY=v1,v2,...' axes of the grid, as the CLI's repeated --sweep"),
        "models": ("list[str] | str | None", None,
                   "Zoo names or ONNX paths, a string split at commas (default mobilenetv2)"),
        "cache_dir": ("str | None", None, "Result cache directory ('' = none; default none)"),
    },
    "inspect": {"crossbar": ("str | tuple[int, int]", "256x256",
                             "Crossbar geometry, 'ROWSxCOLS' or (rows, cols)")},
    "cluster_roofline": {
        "bus_widths": ("list[int] | None", None, "Bus widths of the sweep (bits)"),
        "utilizations": ("list[float] | None", None, "Utilizations of the sweep"),
        "executions": ("list[str] | None", None, "Executions of the sweep"),
    },
    "cluster_bottleneck": {"mappings": ("list[str] | None", None, "Mappings to compare")},
    "sensitivity": {"operators": ("list[str] | None", None,
                                  "Operators to measure (default: every operator the chip can run)")},
    "analog_audit": {},
    "analog_eval": {"seed": ("int | None", None, "Older spelling of chip_seed")},
    "analog_select": {"seed": ("int | None", None, "Older spelling of chip_seed")},
    "analog_drift": {"seed": ("int | None", None, "Older spelling of chip_seed")},
    "analog_study": {"design_risks": ("list[float] | str | None", None,
                                      "Design risks, a list or the CLI's text '0.05,0.1'")},
}

# Jobs whose keywords are another job's table.
TABLE_OF = {"partition_platform": "partition"}

_KIND = {"bool": "bool", "int": "int", "float": "float", "str": "str"}

PROGRESS = _inspect.Parameter(
    "progress", _inspect.Parameter.KEYWORD_ONLY, default=None,
    annotation="Callable[[int, int], object] | bool | None")
PROGRESS_HELP = ("progress(done, total) after each step of the call; None: a tqdm bar when tqdm "
                 "is installed and stderr is a terminal or a Jupyter kernel runs; True: a tqdm "
                 "bar; False: nothing. Ctrl-C stops the call (KeyboardInterrupt)")


def _number(text, kind):
    try:
        return int(text) if kind == "int" else float(text)
    except ValueError:
        return text


def _default(f):
    """The request's default as a Python value (the text the CLI's help shows, typed)."""
    text = f["default"]
    if text == "":
        return None
    if f["unit"] or f["percent"]:
        return text  # '600 s': the CLI's spelling, which the keyword takes as it is
    if f["kind"] == "bool":
        return text == "true"
    if f["kind"] in ("int", "float"):
        return _number(text, f["kind"])
    return text


def _annotation(f, default):
    kind = _KIND[f["kind"]]
    if f["choices"]:
        kind = "Literal[" + ", ".join(repr(c) for c in f["choices"]) + "]"
    if f["unit"] or f["percent"]:
        kind = "float | str"
    if f["kind"] == "float" and not (f["unit"] or f["percent"]):
        kind = "float"
    return kind if default is not None else kind + " | None"


def _help(f):
    text = f["help"]
    extras = []
    if f["unit"]:
        extras.append(f"a {f['unit']}: a number in SI units or text with a unit")
    if f["percent"]:
        extras.append("a fraction (0.02) or text ('2%')")
    if f["choices"]:
        extras.append("one of " + ", ".join(c if c else "''" for c in f["choices"]))
    if f["lo"] is not None or f["hi"] is not None:
        lo = "" if f["lo"] is None else ("(" if f["lo_open"] else "[") + f"{f['lo']:g}"
        hi = "" if f["hi"] is None else f"{f['hi']:g}" + (")" if f["hi_open"] else "]")
        extras.append(f"range {lo or '(-inf'}, {hi or 'inf)'}")
    if f["aliases"]:
        extras.append("also spelt " + ", ".join(f["aliases"]))
    return text + (f" ({'; '.join(extras)})" if extras else "")


def parameters(job, keywords, tables, extra=None):
    """[(inspect.Parameter, help text)] of a job's keywords, in the binding's order (by name)."""
    # partition_platform takes partition's request (api::PartitionRequest with a platform).
    table = {f["name"]: f for f in tables.get(TABLE_OF.get(job, job), [])}
    more = dict(EXTRA.get(job, {}))
    more.update(extra or {})
    fallback = {f["name"]: f for f in tables.get("partition", [])}
    out = []
    for name in keywords.get(job, []):  # a job the tables lack (a build without it): none
        if name in table:
            f = table[name]
            default = _default(f)
            ann, help_text = _annotation(f, default), _help(f)
        elif name in more:
            ann, default, help_text = more[name]
        elif name in fallback:  # execute's hardware keywords: the partition table's fields
            f = fallback[name]
            default, ann = None, _annotation(f, None)
            help_text = _help(f) + " (default: the plan's)"
        else:  # a keyword of the binding not described here: still shown, untyped
            ann, default, help_text = "object", None, "(see the CLI's --help)"
        p = _inspect.Parameter(name, _inspect.Parameter.KEYWORD_ONLY, default=default,
                               annotation=ann)
        out.append((p, help_text))
    return out


def options(job, keywords, tables, *, progress=True, extra=None, returns=None):
    """Decorator: the function's keyword options are job `job`'s (see the module's doc)."""

    def wrap(func):
        sig = _inspect.signature(func)
        head = [p for p in sig.parameters.values() if p.kind not in (p.VAR_KEYWORD,)
                and p.name != "progress"]
        params = parameters(job, keywords, tables, extra)
        names = {p.name for p in head}
        opts = [(p, h) for p, h in params if p.name not in names]
        tail = [PROGRESS] if progress else []
        func.__signature__ = sig.replace(
            parameters=head + [p for p, _ in opts] + tail,
            return_annotation=returns if returns is not None else sig.return_annotation)
        lines = ["", "", "Options (keyword-only; the request's field table, "
                 f"``_hetcim.option_tables()[{job!r}]``):", ""]
        for p, h in opts:
            lines.append(f"- ``{p.name}`` (default {p.default!r}): {h}")
        if progress:
            lines.append(f"- ``progress``: {PROGRESS_HELP}")
        func.__doc__ = (func.__doc__ or "").rstrip() + "\n".join(lines) + "\n"
        func.__hetcim_job__ = job
        return func

    return wrap
