"""agent-tck's one import package: ``agent_tck.harness`` and ``agent_tck.reference_impl``.

The repository keeps the design card's top-level folders ``harness/`` and ``reference_impl/``;
installed, they are subpackages of this package, so the kit adds one distinctive top-level
name to site-packages and cannot shadow, or be shadowed by, another distribution's
``harness``. A wheel places them (and the ``vectors/``, ``features/`` and ``matrix/`` data the
commands read) beside this file (``[tool.hatch.build.targets.wheel]`` in pyproject.toml). An
editable install puts only this folder's parent (``src/``) on the path, and here, where no
``harness/`` sits beside this file, the package's search path becomes the repository root
(then this folder, for ``__main__``).
``tools/namespace.py`` rewrites imports and module paths to these names.
"""

from pathlib import Path

_HERE = Path(__file__).resolve().parent
_CHECKOUT = _HERE.parent.parent
if not (_HERE / "harness").is_dir() and (_CHECKOUT / "harness" / "__init__.py").is_file():
    __path__[:] = [str(_CHECKOUT), str(_HERE)]
