"""The exceptions the package raises.

Every error a user can cause (a bad file, a source outside the graph, a result that
fails validation, a device that is missing or too small) derives from
:class:`RodiniaBFSError`. The command line turns these into one line on stderr and a
non-zero exit; anything else is a bug and keeps its traceback.
"""


class RodiniaBFSError(Exception):
    """Base class of every error the package raises on purpose."""


class ArgumentError(RodiniaBFSError, ValueError):
    """A function was given a value it does not take: a source outside the graph, a
    vertex id with a fraction or below 0, arrays of different lengths. Also a
    ``ValueError``, so code written against NumPy's conventions catches it too."""


class ArgumentTypeError(RodiniaBFSError, TypeError):
    """A function was given the wrong kind of value: a ``bool`` or a string where a
    vertex id goes, a list where a graph goes. Also a ``TypeError``."""


class GraphFormatError(RodiniaBFSError, ValueError):
    """A graph file is malformed; the message names the file and, where known, the line."""

    def __init__(self, path, message, line=None):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class ValidationError(RodiniaBFSError):
    """A BFS result disagrees with the CPU reference or breaks a Graph500 rule."""


class DeviceError(RodiniaBFSError, RuntimeError):
    """A backend call failed; the message carries the vendor's error name."""


class CompileError(DeviceError):
    """A kernel failed to compile; ``log`` holds the compiler's full output."""

    def __init__(self, message, log=""):
        self.log = log
        super().__init__(f"{message}\n{log}" if log else message)
