"""A class on one server: JupyterHub, a roster, one Unix account per person, the nbgrader exchange."""
