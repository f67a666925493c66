"""A stand-in for a person at the screen: answers nb_elicit forms as they appear, by script."""

import asyncio

from nb_elicit._runtime.state import kernel_state

from .fill import fill, shown


class Person:
    """Each form that appears takes the next scripted answer; with none left, it is left waiting.

    Answers are given through the form's own widgets and buttons, like a person would.
    ``accept`` with content fills only the fields it names: the others are sent as shown.
    ``first_look`` holds, for each form in order, what its controls showed when it appeared
    (:func:`~helpers.fill.shown`; ``None`` for a URL card or a retry panel).
    """

    def __init__(self):
        self.script: list[tuple[str, dict | None]] = []
        self.seen = []
        self.first_look: list[dict | None] = []

    def will(self, action: str, content: dict | None = None) -> "Person":
        self.script.append((action, content))
        return self

    async def run(self):
        while True:
            for form in kernel_state().pending.forms():
                if form not in self.seen:
                    self.first_look.append(shown(form) if hasattr(form, "controls") else None)
                    self.seen.append(form)
                    if self.script:
                        self._act(form, *self.script.pop(0))
            await asyncio.sleep(0.005)

    async def wait_for_form(self, count: int = 1, timeout: float = 20,
                            unless: asyncio.Future | None = None):
        """Form number ``count`` once it has appeared. With ``unless`` (a call in flight), a
        call that ends first fails the wait at once, with what the call returned."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.seen) < count:
            if loop.time() > deadline:
                raise TimeoutError(f"no form #{count} within {timeout} s")
            if unless is not None and unless.done():
                ended = unless.result()
                raise AssertionError(f"the call ended before form #{count} appeared: "
                                     f"{getattr(ended, 'text', ended)!r}")
            await asyncio.sleep(0.01)
        return self.seen[count - 1]

    @staticmethod
    def _act(form, action, content):
        if action == "accept" and hasattr(form, "open_button"):  # a URL consent card
            form.open_button.click()
        elif action == "accept" and hasattr(form, "retry_button"):  # pages, then retry
            form.retry_button.click()
        elif action == "accept":
            fill(form, content or {})
            form.submit_button.click()
        elif action == "decline":
            form.decline_button.click()
        elif action == "cancel":
            form.dismiss_button.click()
        elif action != "wait":
            raise ValueError(action)
