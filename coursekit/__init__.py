"""coursekit: the library behind the course's lessons, quizzes and labs.

Notebooks import from here (d2l-style) so that every number a lesson states is computed by code the
reader can open. Sub-modules: device (pick cuda/mps/cpu), hardware (cited chip specs), model_configs
(cited published model shapes), calc (formulas per topic), nn (small models for labs), quiz
(question banks and widgets), progress (self-paced learner store).
"""
__version__ = "0.1.0"
