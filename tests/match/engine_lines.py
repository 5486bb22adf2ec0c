"""The command loop of the stand-in engines beside this file: each command line read, with its output flushed before the next is read."""
import sys


def commands(log=None):
    """Yields (first word, all words) of every non-empty line of stdin, after appending the
    line to `log` when one is given. Whatever the engine printed for a line is flushed
    before the next line is read, so that the match tool sees every answer at once."""
    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        words = line.split()
        if words:
            yield words[0], words
            sys.stdout.flush()
