"""What a person's browser does on a sign-in card, scripted: open the page the card links to,
press the demo authorization server's "Sign in", and land on the loopback (or have the landed
address pasted into the card)."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urljoin

import httpx2


async def follow(card, deliver: str = "loopback") -> str:
    """Follow ``card``'s link once the person clicked Sign in; the address landed on."""
    async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as browser:
        page = await browser.get(card.url.url)
        landed = urljoin(card.url.url, page.headers["location"])
        if "/demo-sign-in" in landed:  # the demo authorization server's sign-in page
            ticket = landed.split("request=", 1)[1]
            await browser.get(landed)
            done = await browser.post(urljoin(landed, "/demo-sign-in"),
                                      data={"request": ticket})
            landed = done.headers["location"]
        if deliver == "paste":
            card.paste_text.value = landed
            card.paste_button.click()
        else:
            await browser.get(landed)
        return landed


class Browser:
    """Follows the link of every sign-in card the person signed in on; ``clicked`` holds when
    each Sign in was clicked (time.monotonic())."""

    def __init__(self, person, deliver: str = "loopback"):
        self.person = person
        self.deliver = deliver
        self.followed: list = []
        self.clicked: list[float] = []
        self.landed: list[str] = []

    async def run(self):
        while True:
            for card in list(self.person.seen):
                if (hasattr(card, "paste_box") and card not in self.followed
                        and card.final_answer() is not None
                        and card.final_answer().action == "accept"):
                    self.followed.append(card)
                    self.clicked.append(time.monotonic())
                    self.landed.append(await follow(card, self.deliver))
            await asyncio.sleep(0.005)


async def connect_signing_in(person, name: str, url: str, **options):
    """``nb_elicit.connect(name, url=url)`` with the person clicking Sign in on the card and the
    browser following its link; returns the connection once a first request went through."""
    import nb_elicit

    person.will("accept")  # Sign in
    browser = Browser(person)
    following = asyncio.create_task(browser.run())
    try:
        conn = await nb_elicit.connect(name, url=url, **options)
        await conn.list_tools()
    finally:
        following.cancel()
    return conn
