"""GPTConfig's shapes, and the one place a shape is validated, counted and bounded: limits.check_config."""

import dataclasses
import tracemalloc

import pytest

from microgpt.model import GPTConfig, init_params, parameters
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import MAX_PARAMETERS, bytes_per_parameter, check_config, parameter_count

SHAPES = [
    {"vocab_size": 27},
    {"vocab_size": 5, "n_layer": 3, "n_embd": 8, "n_head": 2, "block_size": 4},
    {"vocab_size": 2, "n_layer": 2, "n_embd": 1, "n_head": 1, "block_size": 1},
]


@pytest.mark.parametrize("shape", SHAPES)
def test_parameter_count_counts_what_init_params_builds_without_building_it(shape):
    config = GPTConfig(**shape)
    assert parameter_count(config) == len(parameters(init_params(config)))


@pytest.mark.parametrize("shape", SHAPES)
def test_matrix_shapes_are_the_shapes_init_params_builds_in_its_order(shape):
    config = GPTConfig(**shape)
    built = {name: (len(mat), len(mat[0])) for name, mat in init_params(config).items()}
    assert list(config.matrix_shapes().items()) == list(built.items())


@pytest.mark.parametrize(
    ("field", "value"),
    [("n_layer", True), ("n_embd", 16.0), ("block_size", "16"), ("vocab_size", 0), ("n_head", -4), ("n_layer", None)],
)
def test_every_field_must_be_a_positive_whole_number(field, value):
    with pytest.raises(InputError, match=f"{field} must be a positive whole number, got {value!r}"):
        check_config(GPTConfig(**{"vocab_size": 27, field: value}))


def test_n_embd_must_be_divisible_by_n_head():
    with pytest.raises(InputError, match="^n_embd \\(10\\) must be divisible by n_head \\(4\\)$"):
        check_config(GPTConfig(vocab_size=27, n_embd=10))


def test_a_message_names_the_fields_as_the_caller_does():
    with pytest.raises(InputError, match="^--n-embd \\(10\\) must be divisible by --n-head \\(4\\)$"):
        check_config(GPTConfig(vocab_size=27, n_embd=10), name=lambda field: "--" + field.replace("_", "-"))


def test_the_fields_are_the_dataclass_fields():
    names = [field.name for field in dataclasses.fields(GPTConfig)]
    assert names == ["vocab_size", "n_layer", "n_embd", "n_head", "block_size"]


def test_a_model_up_to_the_bound_is_accepted_and_a_larger_one_refused_with_its_memory():
    within = GPTConfig(vocab_size=27, n_embd=192, block_size=4)
    assert parameter_count(within) <= MAX_PARAMETERS
    check_config(within)
    with pytest.raises(InputError) as info:
        check_config(GPTConfig(vocab_size=27, n_embd=256, n_layer=2, block_size=2))  # a pass of 2 tokens fits
    n = 2 * 27 * 256 + 2 * 256 + 2 * 12 * 256 * 256
    assert str(info.value) == (
        f"a model with vocab_size 27, n_layer 2, n_embd 256, n_head 4, block_size 2 has {n:,} parameters, "
        f"which need {n * bytes_per_parameter() / 1e6:.3g} MB of memory at {bytes_per_parameter()} bytes each; "
        f"microgpt builds at most {MAX_PARAMETERS:,} ({MAX_PARAMETERS * bytes_per_parameter() / 1e6:.3g} MB); "
        "with the other settings as they are, n_layer can be at most 1, or n_embd at most 200 (a multiple of n_head 4)"
    )
    assert parameter_count(GPTConfig(vocab_size=27, n_embd=200, n_layer=2)) <= MAX_PARAMETERS
    assert parameter_count(GPTConfig(vocab_size=27, n_embd=204, n_layer=2)) > MAX_PARAMETERS


def test_bytes_per_parameter_is_what_building_a_model_really_takes():
    config = GPTConfig(vocab_size=27, n_embd=32)
    tracemalloc.start()
    try:
        params = init_params(config)
        measured = tracemalloc.get_traced_memory()[0] / parameter_count(config)
    finally:
        tracemalloc.stop()
    assert params  # still alive while measured
    assert bytes_per_parameter() <= measured <= 1.2 * bytes_per_parameter()
