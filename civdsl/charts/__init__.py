"""Quick-reference charts generated from the model (in progress)."""


def render_all(edition, base=None):
    return {}, []


def site_files(results):
    return {}
