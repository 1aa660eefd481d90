# A user's test suite gated on invariance by samebits' pytest plugin: a row-wise callable and a
# planted batch-dependent one, each through the marker and through the fixture.
import pytest
import torch

import samebits

ROW = samebits.Input(shape=(1, "n"))
AXES = {"n": [8, 33]}


def scaled(x):
    return torch.relu(x) * 0.5 + x.abs()  # each element alone: the same bits in any batch


def centered(x):
    return x - x.mean(0, keepdim=True)  # planted: each row reads the rest of its batch


@pytest.mark.samebits(inputs=ROW, axes=AXES)
def test_scaled_marked():
    return scaled


@pytest.mark.samebits(inputs=ROW, axes=AXES, checks=["batch_invariance"])
def test_centered_marked():
    return centered


def test_scaled_fixture(samebits_check):
    assert samebits_check(scaled, ROW, axes=AXES).verdict == "holds"


def test_centered_fixture(samebits_check):
    samebits_check(centered, ROW, axes=AXES, checks=["batch_invariance"])
