"""The one error of the sweep report: a sweep folder, job or plan it cannot read, named with what is allowed."""


class SweepError(ValueError):
    pass
