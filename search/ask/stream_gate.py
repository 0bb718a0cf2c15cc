"""What a streamed answer may show before it is checked: no figure its passages lack.

Streamed words reach the reader before the answer's sentence check runs (at the
end, on the whole text). Words carry no risk a reader can act on; a figure does
("You get 41 days"). So text is shown as it arrives up to the first digit of a
sentence; the rest of that sentence is held until it ends, then shown only if
every figure in it appears in a passage sent (or in the question). A sentence
that fails is never shown; the final, checked answer replaces the streamed text.
"""

from __future__ import annotations

import re

from statements.statement_check import figures, known_figures

# The end of a sentence in a stream: its punctuation followed by white space (a decimal point is not).
_END = re.compile(r"[.!?…](?:[\"'”’)\]]*)(?:\s+(?:\[\d{1,2}\]\s*)*)|\n")


class FigureGate:
    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.pending = ""  # the current sentence: what has not been shown yet
        self.withheld: list[str] = []  # sentences never shown

    def feed(self, delta: str) -> str:
        """The part of ``delta`` (with what was held before) that may be shown now."""
        self.pending += delta
        out: list[str] = []
        while True:
            match = _END.search(self.pending)
            if match is None:
                break
            sentence, self.pending = self.pending[: match.end()], self.pending[match.end() :]
            out.append(self._checked(sentence))
        digit = re.search(r"\d", self.pending)
        cut = digit.start() if digit else len(self.pending)
        out.append(self.pending[:cut])
        self.pending = self.pending[cut:]
        return "".join(out)

    def flush(self) -> str:
        """The rest, once the stream has ended."""
        rest, self.pending = self.pending, ""
        return self._checked(rest)

    def _checked(self, sentence: str) -> str:
        if figures(sentence) - self.known:
            self.withheld.append(sentence)
            return ""
        return sentence


def gate_for(passages: list, question: str) -> FigureGate:
    return FigureGate(known_figures(question, (p.text for p in passages)))
