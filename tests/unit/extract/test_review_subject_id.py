"""REVIEW S13-R12: capture never rewrites a user id into a different word.

Without ``--speaker``, capture writes its statements about the user id with its first
letter upper-cased: user "dana@example.com" gets "Dana@example.com prefers …", user
"user-7f3a9c" gets "User-7f3a9c prefers …" — an identifier changed inside the memory
(issue 16: identifiers come back byte-identical). A name-like id ("dana") may still
become "Dana".
"""

from __future__ import annotations

import pytest

from memvault.extract.base import Message


@pytest.mark.parametrize("user_id", ["dana@example.com", "user-7f3a9c", "acct_12ab"])
def test_an_id_that_is_no_name_is_never_altered(user_id: str) -> None:
    subject = Message(text="I prefer dark mode.", user_id=user_id).subject
    assert subject in {user_id, "The user"}, subject


def test_a_name_like_id_is_capitalised() -> None:
    assert Message(text="I prefer dark mode.", user_id="dana").subject == "Dana"
