"""A flag the chosen variant does not use is an error naming the variants that take it, and
``--gpus`` past what the backend has is an error before the graph is read."""

import argparse
from types import SimpleNamespace

import pytest

from rodinia_bfs import cli
from rodinia_bfs.api import Plan
from rodinia_bfs.cli import main
from rodinia_bfs.errors import RodiniaBFSError
from rodinia_bfs.graphs import formats
from rodinia_bfs.graphs.formats import save_graph

from helpers import awkward_graph


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "g.el"
    save_graph(awkward_graph(), path)
    return path


@pytest.fixture
def no_load(monkeypatch):
    """Fail the test if a graph is read: these checks come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("the graph was read before the flags were checked")

    for name in ("load_graph", "load_rodinia", "_load"):
        monkeypatch.setattr(formats, name, refuse)


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


CASES = {
    "gpus-with-queue": (["--variant", "queue", "--backend", "cpu", "--gpus", "2"],
                        "--gpus is used only by the variant multi_gpu; not by queue"),
    "gpus-with-reference": (["--variant", "reference", "--gpus", "2"],
                            "--gpus is used only by the variant multi_gpu"),
    "memory-limit-with-balanced": (["--variant", "balanced", "--backend", "cpu",
                                    "--gpu-memory-limit", "1GiB"],
                                   "--gpu-memory-limit is used only by the variants multi_gpu, out_of_memory"),
    "direction-with-queue": (["--variant", "queue", "--backend", "cpu", "--direction", "pull"],
                             "--direction is used only by the variants push_pull_basic, push_pull, "
                             "adaptive_basic, adaptive, multi_gpu, out_of_memory; not by queue"),
    "direction-with-reference": (["--variant", "reference", "--direction", "auto"],
                                 "--direction is used only by the variants"),
    "warp-size-with-reference": (["--variant", "reference", "--warp-size", "64"],
                                 "--warp-size is used only by the GPU steps on the cpu backend"),
    "warp-size-no-gpu-auto": (["--backend", "auto", "--warp-size", "32"], None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_unused_flag_is_an_error(graph_file, capsys, no_load, case, monkeypatch):
    argv, message = CASES[case]
    if message is None:  # auto without a GPU runs the reference: the warp size is unused
        from rodinia_bfs.runtime import probe_backends

        if any(probe_backends()[b][0] for b in ("hip", "cuda")):
            pytest.skip("a GPU is present: auto runs a GPU step")
        message = "--warp-size is used only by the GPU steps on the cpu backend"
    assert main(["run", str(graph_file), *argv]) == 1
    assert message in one_line(capsys)


def _args(**given):
    values = {"gpus": None, "gpu_memory_limit": None, "direction": None, "warp_size": None,
              "host_edges": None, "variant": "given"}
    values.update(given)
    return argparse.Namespace(**values)


def test_options_go_to_the_variants_that_take_them():
    chosen = Plan(("reference", "queue", "push_pull", "adaptive", "multi_gpu"), "cpu")
    options = cli._check_step_options(_args(direction="pull", gpus=3), chosen)
    assert options == {"reference": {}, "queue": {}, "push_pull": {"direction": "pull"},
                       "adaptive": {"direction": "pull"},
                       "multi_gpu": {"direction": "pull", "gpus": 3}}


def test_takers_follow_the_constructors():
    assert cli._takers("gpus") == ["multi_gpu"]
    assert cli._takers("memory_limit") == ["multi_gpu", "out_of_memory"]
    assert cli._takers("host_edges") == ["out_of_memory"]
    assert set(cli._takers("direction")) == {"push_pull_basic", "push_pull", "adaptive_basic",
                                             "adaptive", "out_of_memory", "multi_gpu"}


def test_warp_size_with_cpu_backend_is_fine():
    chosen = Plan(("queue",), "cpu")
    assert cli._check_step_options(_args(warp_size=64), chosen) == {"queue": {}}


# -- --gpus bounds, before the graph is read ------------------------------------------------


@pytest.mark.parametrize("gpus, message", [
    ("999", f"--gpus 999: the cpu backend emulates at most {cli.MAX_EMULATED_GPUS} devices"),
    ("17", "--gpus 17: the cpu backend emulates at most 16 devices"),
    ("0", "--gpus must be at least 1, got 0"),
])
def test_gpus_bound_on_the_emulator(graph_file, capsys, no_load, gpus, message):
    argv = ["run", str(graph_file), "--variant", "multi_gpu", "--backend", "cpu", "--gpus", gpus]
    assert main(argv) == 1
    assert message in one_line(capsys)


def test_gpus_above_the_visible_gpus(monkeypatch):
    monkeypatch.setattr(cli, "_visible_gpus", lambda backend: 2)
    cli._check_gpus(2, SimpleNamespace(backend="cuda"))
    with pytest.raises(RodiniaBFSError, match="--gpus 3: only 2 cuda GPUs are visible"):
        cli._check_gpus(3, SimpleNamespace(backend="cuda"))
    monkeypatch.setattr(cli, "_visible_gpus", lambda backend: 1)
    with pytest.raises(RodiniaBFSError, match="only 1 hip GPU is visible"):
        cli._check_gpus(2, SimpleNamespace(backend="hip"))


def test_gpus_within_bound_passes():
    cli._check_gpus(cli.MAX_EMULATED_GPUS, SimpleNamespace(backend="cpu"))
    cli._check_gpus(None, SimpleNamespace(backend="cpu"))


def test_help_names_the_takers(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "push_pull_basic, push_pull, adaptive_basic, adaptive, multi_gpu, out_of_memory: push" in text
    assert "duplicate edges and self loops are kept and counted" in text
    assert "mtx .mtx: MatrixMarket; vertices from 1" in text
    assert "--source-base" in text and "--max-input-size" in text
