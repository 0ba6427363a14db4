"""The one exception for bad input: the command line prints its message and exits 2."""


class InputError(ValueError):
    """A data file, checkpoint or setting that microgpt cannot use, with a message saying why."""
