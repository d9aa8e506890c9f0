"""Formulas, one module per topic; every lesson number is computed here from cited inputs."""
