"""What counts as a meaningful text alternative for a figure, in a notebook or on the website."""
import re

EMPTY = re.compile(r"^\s*(figure|image|plot|chart|graph)?\s*\d*\s*$|\.(png|jpe?g|svg)\b|<Figure size", re.I)


def meaningful(alt: str) -> bool:
    """Not empty, not a file name or "figure 1": a sentence or more, with at least one number in it."""
    return len(alt) >= 60 and not EMPTY.search(alt) and bool(re.search(r"\d", alt))
