"""What the Python scripts of scripts/ share: the damka binary they start, an engine process spoken to line by line (damka's UCI-style dialect, or Scan's Hub), its CPU time, and the test positions of scripts/positions.txt.

Imported by the scripts beside it (their own folder is on Python's path):

    from damka_proc import Engine, default_binary, positions

Standard library only; the CPU clock needs Linux (/proc).
"""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RELEASE_BINARY = ROOT / "target" / "release" / "damka"
TICK = os.sysconf("SC_CLK_TCK")


def default_binary():
    """The damka a script runs when it is given none: $DAMKA when set, else
    target/release/damka (relative, as the scripts' `--bin` options have always said it)."""
    return os.environ.get("DAMKA", "target/release/damka")


def ensure_built(binary):
    """Builds target/release/damka (cargo build --release) when `binary` is that file and it is
    missing; any other missing binary is an error."""
    path = pathlib.Path(binary)
    if path.exists():
        return
    if path.resolve() != RELEASE_BINARY:
        sys.exit(f"{script_name()}: no damka binary at {binary}")
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)


def script_name():
    return pathlib.Path(sys.argv[0]).stem


def cpu_ms(pid):
    """User + system CPU time of the process (all its threads) so far, in ms."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def positions(*names):
    """{name: (variant, FEN)} of scripts/positions.txt, in the file's order; only `names`
    when given (each must be there)."""
    found = {}
    for line in (ROOT / "scripts" / "positions.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, variant, fen = line.split()
            found[name] = (variant, fen)
    missing = [name for name in names if name not in found]
    if missing:
        sys.exit(f"{script_name()}: no position {', '.join(missing)} in scripts/positions.txt")
    return {name: found[name] for name in names} if names else found


class Engine:
    """An engine child process talking line by line. `argv` is a damka binary's path (built
    when it is the missing release binary) or a whole command line as a list."""

    def __init__(self, argv, cwd=None):
        if isinstance(argv, (str, os.PathLike)):
            ensure_built(argv)
            argv = [argv]
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        self.name = pathlib.Path(argv[0]).name

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def readline(self, waiting_for="a line"):
        """The next line, stripped. Stops the script when the engine has exited or refused a
        command (`info string error ...`)."""
        line = self.p.stdout.readline()
        if not line:
            sys.exit(f"{script_name()}: {self.name} exited before {waiting_for}")
        line = line.strip()
        if line.startswith("info string error"):
            sys.exit(f"{script_name()}: {line}")
        return line

    def read_until(self, first_word):
        """The lines up to and including the first whose first word is `first_word`."""
        lines = []
        while True:
            line = self.readline(f"'{first_word}'")
            lines.append(line)
            if line.split(" ", 1)[0] == first_word:
                return lines

    def sync(self):
        self.send("isready")
        self.read_until("readyok")

    def uci(self, variant=None, hash_mb=None, threads=None, book=None):
        """damka in its UCI-style dialect (docs/protocol.md), the options given set, a new
        game. The scripts that measure a search pass book=False: from a position in the
        built-in opening book damka would answer with a book move and search nothing."""
        self.send("uci")
        self.read_until("uciok")
        for option, value in (("Variant", variant), ("Hash", hash_mb), ("Threads", threads),
                              ("Book", None if book is None else str(book).lower())):
            if value is not None:
                self.send(f"setoption name {option} value {value}")
        self.send("ucinewgame")
        self.sync()

    def display(self):
        """The fields of damka's `d` (e.g. "Fen", "Legal moves", "Outcome")."""
        self.send("d")
        self.send("isready")
        info = {}
        for line in self.read_until("readyok"):
            if ": " in line:
                key, value = line.split(": ", 1)
                info[key] = value
        return info

    def cpu_ms(self):
        return cpu_ms(self.p.pid)

    def close(self, quit_word="quit"):
        try:
            self.send(quit_word)
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.p.kill()
