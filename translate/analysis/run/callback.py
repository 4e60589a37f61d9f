"""The trainer plug-in: encoding pictures at the start and the end, attention maps of the probes at every
validation (the trainer always validates at the end). The test report itself (`by_length`) is made by
translate.train.run after loading best.pt."""
from __future__ import annotations

from translate.analysis.run.report_split import log_pictures, probes_for
from translate.analysis.run.settings import ReportSettings


class LengthReport:
    def __init__(self, settings: ReportSettings) -> None:
        self.settings = settings
        self.probes: list = []

    def on_start(self, trainer) -> None:
        # Probes come from the test split so that the pictures follow the sentences the final report scores.
        self.probes = probes_for(self.settings, trainer.translator, trainer.data.splits["test"])
        log_pictures(self.settings, trainer.translator, [], trainer.writer, trainer.progress.step, encoding=True)

    def on_validate(self, trainer) -> None:
        log_pictures(self.settings, trainer.translator, self.probes, trainer.writer, trainer.progress.step,
                     encoding=False)

    def on_end(self, trainer) -> None:
        log_pictures(self.settings, trainer.translator, [], trainer.writer, trainer.progress.step, encoding=True)
