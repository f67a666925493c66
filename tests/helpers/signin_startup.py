"""A person and a browser for the sign-in card, in a kernel that nbclient runs (no widgets).

The test of sign-in.ipynb run headless (tests/test_notebooks.py) puts this file in the kernel's
IPython start-up folder. Each sign-in card, once made, gets one click on **Sign in** (as a
person's would), and a thread does what the browser does with the page it opens: the demo
authorization server's sign-in page, its "Sign in as the demo user", and the loopback address it
lands on. The notebook holds none of this: it has only what a reader types.
"""

import threading
from urllib.parse import urljoin

import httpx2

from nb_elicit._ui.signin_card import SignInCard


def _browse(address: str) -> None:
    with httpx2.Client(follow_redirects=False, timeout=30) as browser:
        landed = urljoin(address, browser.get(address).headers["location"])
        ticket = landed.split("request=", 1)[1]
        browser.get(landed)
        done = browser.post(urljoin(landed, "/demo-sign-in"), data={"request": ticket})
        browser.get(done.headers["location"])  # the kernel's loopback: the sign-in ends


_made = SignInCard.__init__


def _made_then_clicked(card, *args, **kwargs):
    _made(card, *args, **kwargs)
    address = card.open_button.href
    card.open_button.click()  # Sign in: the card answers accept, the browser opens the page
    threading.Thread(target=_browse, args=(address,), daemon=True).start()


SignInCard.__init__ = _made_then_clicked
