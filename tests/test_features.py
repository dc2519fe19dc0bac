"""Binds every Gherkin feature in features/ (step definitions: harness/bdd/)."""

from pytest_bdd import scenarios

from agent_tck.harness.common.data import features_dir

scenarios(str(features_dir()))
