"""The course as a static website: `course site` executes every lesson and lab on the CPU and renders
them, with the reading list and the errata, through Sphinx and MyST-NB (Jupyter Book 1's engine)."""
