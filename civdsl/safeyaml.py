"""The one way civdsl reads YAML: PyYAML's safe loader, held to a size after aliases expand.

A YAML alias (`*a`) repeats what an anchor (`&a`) names without copying it in the file, so a
9 KB "billion laughs" file describes a value of 10^9 elements: loading it is cheap (PyYAML
shares the repeated objects), but the first pass that walks the value (checking a state,
copying it, printing it) runs out of memory. So the node graph is measured before anything is
built: the number of aliases, and the number of nodes the value would have if every alias were
written out, each with a limit far above any real file's, and a cycle (`&a [*a]`) is refused.
The measure is iterative and visits each distinct node once, so it costs no more than the file.
"""

from __future__ import annotations

import yaml

# A hand-written state file needs no aliases; a generated one may share a few lists.
MAX_ALIASES = 1_000
# Elements of the value with every alias expanded: a state file of 1 MB (the size limit) written
# without aliases has at most about 500,000 scalars, so this refuses only what aliases inflate.
MAX_NODES = 1_000_000

_Loader = yaml.SafeLoader  # what yaml.safe_load uses: its words for a malformed document are the ones users see
# libyaml's reader of the same documents (the same safe constructor and resolver over a parser
# written in C), ten times faster on a long file (a game file of a whole game, hand-edited out of
# the ledger's one-event-a-line layout): where it is installed, a document is read by it first,
# and one it cannot read (malformed, or nested beyond its own cap of 1,000 levels) is read again
# by _Loader, so an error says what it always said
_FastLoader = getattr(yaml, "CSafeLoader", None)


class YAMLLimitError(ValueError):
    """The document expands beyond the limits above; the message says which."""


def load(text: str):
    """Like `yaml.safe_load(text)`, but refusing documents that expand beyond the limits.

    Raises yaml.YAMLError for malformed YAML and YAMLLimitError for a document too big."""
    return _read(text, _load_with)


def compose(text: str):
    """The document's node graph (marks give each value's line), held to the same limits as `load`;
    None for an empty document. Raises yaml.YAMLError and YAMLLimitError as `load` does."""
    return _read(text, _compose_with)


def _read(text: str, how):
    if _FastLoader is not None:
        try:
            return how(_FastLoader, text)
        except YAMLLimitError:
            raise  # the limits are measured on the nodes alike: the pure reader would say the same
        except (yaml.YAMLError, RecursionError, ValueError, TypeError, MemoryError):
            pass  # the pure reader's words, as ever
    return how(_Loader, text)


def _load_with(loader_class, text: str):
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        measure(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _compose_with(loader_class, text: str):
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            measure(node)
        return node
    finally:
        loader.dispose()


def measure(root: yaml.Node) -> int:
    """The number of nodes of `root` with every alias expanded; raises YAMLLimitError when
    that, or the number of aliases, is over its limit, or when an alias contains itself."""
    return _Measurement(root).expanded_size()


class _Measurement:
    """One walk of a node graph, iterative (a deep document cannot exhaust Python's stack): each
    distinct node is opened (its children met), then finished (its expanded size summed)."""

    def __init__(self, root: yaml.Node):
        self.root = root
        self.size: dict[int, int] = {}  # node id -> expanded size, once finished
        self.open: set[int] = set()  # nodes whose children are being measured (a cycle revisits one)
        self.aliases = 0
        self.seen: set[int] = {id(root)}  # nodes met so far: meeting one again is an alias

    def expanded_size(self) -> int:
        stack: list[tuple[yaml.Node, bool]] = [(self.root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                self._finish(node)
            elif id(node) not in self.size:
                stack += self._opened(node)
        return self.size[id(self.root)]

    def _opened(self, node: yaml.Node) -> list[tuple[yaml.Node, bool]]:
        """What to visit after opening NODE: its children, then NODE again to finish it."""
        self.open.add(id(node))
        out = [(node, True)]
        for child in _children(node):
            self._meet(child)
            out.append((child, False))
        return out

    def _meet(self, child: yaml.Node) -> None:
        """A child met: refused when it contains the node that leads to it, counted as an alias
        when met before."""
        key = id(child)
        if key in self.open:
            raise YAMLLimitError("an alias refers to a value that contains it")
        if key in self.seen:
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise YAMLLimitError(f"the document uses more than {MAX_ALIASES:,} aliases")
        self.seen.add(key)

    def _finish(self, node: yaml.Node) -> None:
        total = 1 + sum(self.size[id(c)] for c in _children(node))
        if total > MAX_NODES:
            raise YAMLLimitError(f"the document would expand to more than {MAX_NODES:,} values "
                                 f"(aliases repeat what an anchor names)")
        self.size[id(node)] = total
        self.open.discard(id(node))


def _children(node: yaml.Node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []
