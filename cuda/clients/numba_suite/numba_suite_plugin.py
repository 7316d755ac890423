"""pytest plugin for running numba-cuda's installed test suite (the wheel's
numba.cuda.tests) on ptxjit's libcuda.so.1.

1. The numba-cuda wheel ships the tests but not the repository's conftest.py,
   whose class fixture `initialize_from_pytest_config` every CUDATestCase uses
   (numba.cuda.testing marks CUDATestCase with
   @pytest.mark.usefixtures("initialize_from_pytest_config")). This plugin
   provides that fixture and the `--dump-failed-filechecks` option it reads.
2. Test modules are imported under their package names
   (`numba.cuda.tests.cudapy.test_x`), as the test runner of the numba-cuda
   repository does. pytest's own import (any --import-mode) would name them
   `cuda.tests...` (the wheel installs numba.cuda as numba_cuda/numba/cuda,
   which has no numba/__init__.py), and a test that sends one of its
   functions to a spawned process (multiprocessing pickles it by module name)
   would fail in the child with "No module named 'cuda.tests'".
3. `--expected-failures FILE` deselects the tests FILE lists (one pytest node
   id a line, then `# reason`; blank lines and lines starting with `#` are
   skipped) and reports how many it deselected. An id whose module was
   collected but which names no collected test is an error, so the list cannot
   go stale silently.

Load it with `-p numba_suite_plugin` with this directory on PYTHONPATH
(cuda/clients/numba_suite.sh does both). Node ids are relative to the
numba_cuda package directory: run pytest with `--rootdir` set to it.
"""

import importlib
import os

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--dump-failed-filechecks",
        action="store_true",
        default=False,
        help="write the IR and checks of a failed FileCheck assertion to a "
        "numba-ir-<date> directory, with the command that reproduces it",
    )
    parser.addoption(
        "--expected-failures",
        metavar="FILE",
        default=None,
        help="deselect the test ids listed in FILE (one a line, '# reason' after)",
    )


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    """Sets the CUDATestCase class attribute assertFileCheckMatches reads."""
    request.cls._dump_failed_filechecks = request.config.getoption(
        "dump_failed_filechecks"
    )


_TESTS_DIR = None


def _tests_dir():
    """The directory of the installed numba.cuda.tests package."""
    global _TESTS_DIR
    if _TESTS_DIR is None:
        spec = importlib.util.find_spec("numba.cuda.tests")
        _TESTS_DIR = os.path.realpath(spec.submodule_search_locations[0])
    return _TESTS_DIR


class PackageModule(pytest.Module):
    """A test module of numba.cuda.tests, imported by its dotted name."""

    def _getobj(self):
        rel = os.path.relpath(os.path.realpath(self.path), _tests_dir())
        name = "numba.cuda.tests." + rel[: -len(".py")].replace(os.sep, ".")
        try:
            mod = importlib.import_module(name)
        except ImportError as e:
            raise self.CollectError(
                f"ImportError while importing test module {name}: {e!r}"
            ) from e
        if os.path.realpath(mod.__file__) != os.path.realpath(self.path):
            raise self.CollectError(
                f"{name} imports {mod.__file__}, not the test file {self.path}"
            )
        self.config.pluginmanager.consider_module(mod)
        return mod


def pytest_pycollect_makemodule(module_path, parent):
    path = os.path.realpath(module_path)
    if path.startswith(_tests_dir() + os.sep) and path.endswith(".py"):
        return PackageModule.from_parent(parent, path=module_path)
    return None


def read_expected_failures(path):
    """{node id: reason} from an expected-failures file. Raises UsageError on a
    line without a reason or a duplicate id."""
    listed = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            node, sep, reason = line.partition("#")
            node, reason = node.strip(), reason.strip()
            if not sep or not reason or not node:
                raise pytest.UsageError(
                    f"{path}:{number}: expected '<test id>  # <reason>', got {line!r}"
                )
            if node in listed:
                raise pytest.UsageError(f"{path}:{number}: {node} is listed twice")
            listed[node] = reason
    return listed


def pytest_collection_modifyitems(session, config, items):
    path = config.getoption("expected_failures")
    if path is None:
        return
    listed = read_expected_failures(path)
    keep, drop = [], []
    seen = set()
    for item in items:
        if item.nodeid in listed:
            drop.append(item)
            seen.add(item.nodeid)
        else:
            keep.append(item)
    # A listed id in a collected module that matches no test is stale.
    modules = {item.nodeid.split("::", 1)[0] for item in items}
    stale = [
        node
        for node in listed
        if node not in seen and node.split("::", 1)[0] in modules
    ]
    if stale:
        raise pytest.UsageError(
            f"{path}: these ids name no collected test:\n  " + "\n  ".join(stale)
        )
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    config._numba_suite_expected = len(drop)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    n = getattr(config, "_numba_suite_expected", None)
    if n is not None:
        terminalreporter.write_line(
            f"numba_suite: {n} expected failures deselected "
            f"(listed in {config.getoption('expected_failures')})"
        )
