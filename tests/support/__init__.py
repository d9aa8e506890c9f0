"""The test suite's shared helpers: fixtures' machinery, emulators, corpora and page drivers."""
