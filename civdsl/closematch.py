"""The closest name to a mistyped one, for a "did you mean" hint: difflib's
`get_close_matches(word, names, n=1, cutoff=0.6)`, written in the engine subset so that the
command line and the page (py2es translates it) suggest the same name from one source.

The answer is difflib's exactly (tests/test_closematch.py checks it against difflib): the ratio
is `SequenceMatcher(None, name, word).ratio()` (the longest matching blocks, found as difflib
finds them; in a word of 200 characters or more, the characters that fill more than 1% of it
are not matched on, as difflib's autojunk does), a name qualifies at a ratio of at least the
cutoff, and of two names with the same ratio the greater wins (difflib takes the largest
(ratio, name) pair).
"""

from __future__ import annotations


def _positions(word: list) -> dict:
    """Each character of WORD -> the positions it is at, in order; in a word of 200 or more, the
    popular characters left out (difflib's autojunk)."""
    b2j: dict = {}
    for j, ch in enumerate(word):
        b2j.setdefault(ch, []).append(j)
    if len(word) >= 200:
        popular = len(word) // 100 + 1
        for ch in [c for c, at in b2j.items() if len(at) > popular]:
            del b2j[ch]
    return b2j


def _longest(a: list, b: list, b2j: dict, alo: int, ahi: int, blo: int, bhi: int) -> tuple:
    """difflib's find_longest_match with no junk: (i, j, size) of the longest block of a[alo:ahi]
    equal to one of b[blo:bhi], the earliest in a, then in b."""
    besti, bestj, bestsize = alo, blo, 0
    j2len: dict = {}
    for i in range(alo, ahi):
        next_j2len: dict = {}
        for j in b2j.get(a[i], ()):
            if j < blo:
                continue
            if j >= bhi:
                break
            k = j2len.get(j - 1, 0) + 1
            next_j2len[j] = k
            if k > bestsize:
                besti, bestj, bestsize = i - k + 1, j - k + 1, k
        j2len = next_j2len
    # a popular character (left out of b2j) still extends a block, as in difflib
    while besti > alo and bestj > blo and a[besti - 1] == b[bestj - 1]:
        besti, bestj, bestsize = besti - 1, bestj - 1, bestsize + 1
    while besti + bestsize < ahi and bestj + bestsize < bhi and a[besti + bestsize] == b[bestj + bestsize]:
        bestsize = bestsize + 1
    return besti, bestj, bestsize


def ratio(name: str, word: str) -> float:
    """difflib.SequenceMatcher(None, name, word).ratio(): twice the characters of the matching
    blocks over both lengths."""
    a, b = list(name), list(word)
    b2j = _positions(b)
    matched = 0
    queue = [(0, len(a), 0, len(b))]
    while queue:
        alo, ahi, blo, bhi = queue.pop()
        i, j, k = _longest(a, b, b2j, alo, ahi, blo, bhi)
        if k:
            matched += k
            if alo < i and blo < j:
                queue.append((alo, i, blo, j))
            if i + k < ahi and j + k < bhi:
                queue.append((i + k, ahi, j + k, bhi))
    total = len(a) + len(b)
    return 2.0 * matched / total if total else 1.0


def close_match(word: str, names: list, cutoff: float = 0.6) -> str | None:
    """difflib.get_close_matches(word, names, n=1, cutoff)'s one name, or None. As difflib, a name
    whose quick upper bounds of the ratio (the lengths; the characters in common) fall below the
    cutoff is not compared block by block."""
    counts: dict = {}
    for ch in word:
        counts[ch] = counts.get(ch, 0) + 1
    best = None
    best_score = 0.0
    for name in names:
        total = len(name) + len(word)
        if total and (2.0 * min(len(name), len(word)) / total < cutoff or 2.0 * _common(name, counts) / total < cutoff):
            continue
        score = ratio(name, word)
        if score >= cutoff and (best is None or score > best_score or (score == best_score and name > best)):
            best, best_score = name, score
    return best


def _common(name: str, counts: dict) -> int:
    """How many characters NAME has in common with the word whose character COUNTS are given
    (difflib's quick_ratio: each character of the word matched once)."""
    left: dict = {}
    common = 0
    for ch in name:
        n = left[ch] if ch in left else counts.get(ch, 0)
        left[ch] = n - 1
        if n > 0:
            common = common + 1
    return common


def did_you_mean(name: str, candidates) -> str | None:
    """The closest candidate to `name`, for a `help:` line, or None."""
    cands = list(candidates)
    if not cands:
        return None
    lowered = {c.lower(): c for c in cands}
    if name.lower() in lowered:
        return lowered[name.lower()]
    match = close_match(name.lower(), list(lowered))
    return lowered[match] if match is not None else None


def did_you_mean_words(name: str, candidates) -> str | None:
    """The closest candidate, comparing `name` with whole names first and then with each word of
    a name ("Volcano" finds "Volcanic Eruption or Earthquake"), or None."""
    best = did_you_mean(name, candidates)
    if best is not None:
        return best
    words: dict = {}
    for c in candidates:
        for word in c.lower().split():
            if len(word) > 2:  # "or", "of" match everything
                words.setdefault(word, c)
    match = close_match(name.lower(), list(words))
    return words[match] if match is not None else None
